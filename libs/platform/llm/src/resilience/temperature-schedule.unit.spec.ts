import { AuthenticationError, InvalidStructuredOutputError, ProviderUnavailableError, RateLimitedError } from '../errors.js';
import { composeReplyRequest, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { generateWithSchedule } from './temperature-schedule.js';

const request = composeReplyRequest({ agentName: 'A', message: 'hi', matched: [], history: [] }, { purpose: 'compose_reply' }, { temperature: 0.3 });
const good = { message: 'Hello!', cited_guideline_ids: [], canned_response_id: '' };

describe('generateWithSchedule', () => {
  it('answers at the first temperature when that works', async () => {
    const llm = new ScriptedProvider().answer('compose_reply', good);
    const { response, attempts } = await generateWithSchedule<unknown, ComposeReplyOutput>(llm, request, [0, 0.5]);
    expect(response.value).toEqual(good);
    expect(attempts).toEqual([{ temperature: 0 }]);
    expect(llm.requests.map((r) => r.temperature)).toEqual([0]);
    expect(request.temperature).toBe(0.3);
  });

  it('tries the next temperature after an answer out of schema or an unavailable provider, recording why', async () => {
    const invalid = new InvalidStructuredOutputError('scripted', 'reply', '/message', ['blank']);
    const unavailable = new ProviderUnavailableError('scripted', '400 temperature not supported', false, 400);
    // A scripted answer that violates the schema fails validation exactly like a model's would.
    const llm = new ScriptedProvider().answer('compose_reply', { message: ' ', cited_guideline_ids: [] }).fail('compose_reply', unavailable).answer('compose_reply', good);
    const { response, attempts } = await generateWithSchedule<unknown, ComposeReplyOutput>(llm, request, [0, 0.4, 0.8]);
    expect(response.value).toEqual(good);
    expect(attempts).toEqual([
      { temperature: 0, error: expect.objectContaining({ code: invalid.code, path: '/message' }) as unknown },
      { temperature: 0.4, error: unavailable },
      { temperature: 0.8 },
    ]);
    expect(llm.requests.map((r) => r.temperature)).toEqual([0, 0.4, 0.8]);
  });

  it('throws the last error when every temperature fails', async () => {
    const last = new ProviderUnavailableError('scripted', 'down', true, 503);
    const llm = new ScriptedProvider().fail('compose_reply', new ProviderUnavailableError('scripted', 'down', true, 503)).fail('compose_reply', last);
    await expect(generateWithSchedule(llm, request, [0, 1])).rejects.toBe(last);
  });

  it.each([
    ['a rate limit (the adapter already waited)', new RateLimitedError('scripted', 5_000, '429')],
    ['bad credentials', new AuthenticationError('scripted', '401')],
    ['a bug', new TypeError('oops')],
  ])('stops at once on %s', async (_, error) => {
    const llm = new ScriptedProvider().fail('compose_reply', error).answer('compose_reply', good);
    await expect(generateWithSchedule(llm, request, [0, 0.5])).rejects.toBe(error);
    expect(llm.requests).toHaveLength(1);
  });

  it('needs at least one temperature', async () => {
    await expect(generateWithSchedule(new ScriptedProvider(), request, [])).rejects.toThrow(RangeError);
  });
});
