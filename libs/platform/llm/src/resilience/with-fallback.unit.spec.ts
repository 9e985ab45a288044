import {
  AuthenticationError,
  InvalidStructuredOutputError,
  ProviderUnavailableError,
  RateLimitedError,
  UnsupportedTaskError,
} from '../errors.js';
import type { ComposeReplyOutput } from '../tasks/compose-reply.js';
import { composeReplyRequest } from '../tasks/compose-reply.js';
import { ScriptedProvider, ScriptExhaustedError } from '../testing/scripted-provider.js';
import { withUsageReporting, type UsageRecord } from '../usage/usage-reporting.js';
import { withFallback } from './with-fallback.js';

const request = composeReplyRequest(
  { agentName: 'A', message: 'hi', matched: [], history: [] },
  { purpose: 'compose_reply', agentId: 'a-1' },
);
const primaryAnswer = { message: 'From the primary.', cited_guideline_ids: [], canned_response_id: '', cited_chunk_ids: [] };
const fallbackAnswer = { message: 'From the fallback.', cited_guideline_ids: [], canned_response_id: '', cited_chunk_ids: [] };

const providers = () => ({
  primary: new ScriptedProvider({ model: 'big-1' }),
  fallback: new ScriptedProvider({ model: 'small-1', usage: { inputTokens: 8, outputTokens: 2 } }),
});

describe('withFallback', () => {
  it('answers from the primary while it works, without touching the fallback', async () => {
    const { primary, fallback } = providers();
    primary.answer('compose_reply', primaryAnswer);
    const llm = withFallback(primary, fallback);
    const response = await llm.generate<unknown, ComposeReplyOutput>(request);
    expect(response.value).toEqual(primaryAnswer);
    expect(response.fallbackFrom).toBeUndefined();
    expect(fallback.requests).toHaveLength(0);
    expect({ name: llm.name, model: llm.model }).toEqual({ name: 'scripted', model: 'big-1' });
  });

  it.each([
    ['unavailable', new ProviderUnavailableError('scripted', '503', true, 503)],
    ['rejecting the request', new ProviderUnavailableError('scripted', '400', false, 400)],
    ['rate limited after its retries', new RateLimitedError('scripted', 30_000, '429')],
    ['rejecting the key', new AuthenticationError('scripted', '401')],
    ['answering out of schema', new InvalidStructuredOutputError('scripted', 'reply', '/message', ['x'])],
  ])('lets the fallback answer the same request when the primary is %s, naming the primary in fallbackFrom', async (_, error) => {
    const { primary, fallback } = providers();
    primary.fail('compose_reply', error);
    // An answer out of schema is first repaired once (the repair fails the same way here).
    if (error instanceof InvalidStructuredOutputError) primary.fail('compose_reply', error);
    fallback.answer('compose_reply', fallbackAnswer);
    const response = await withFallback(primary, fallback).generate<unknown, ComposeReplyOutput>(request);
    expect(response).toMatchObject({
      value: fallbackAnswer,
      provider: 'scripted',
      model: 'small-1',
      usage: { inputTokens: 8, outputTokens: 2 },
      fallbackFrom: 'scripted/big-1',
    });
    expect(fallback.requests).toEqual([request]);
  });

  it.each([
    ['an unsupported task', new UnsupportedTaskError('scripted', 'compose_reply', [])],
    ['a bug', new TypeError('undefined is not a function')],
    ['an exhausted script', new ScriptExhaustedError('compose_reply', 1)],
  ])('passes %s through: another provider would fail the same way', async (_, error) => {
    const { primary, fallback } = providers();
    primary.fail('compose_reply', error);
    await expect(withFallback(primary, fallback).generate(request)).rejects.toBe(error);
    expect(fallback.requests).toHaveLength(0);
  });

  it("reports the primary's error when both fail, unless only the fallback's is worth retrying", async () => {
    const rateLimited = new RateLimitedError('scripted', 1_000, '429');
    const badKey = new AuthenticationError('scripted', '401');
    const down = new ProviderUnavailableError('scripted', '503', true, 503);
    const case1 = providers();
    case1.primary.fail('compose_reply', rateLimited);
    case1.fallback.fail('compose_reply', badKey);
    await expect(withFallback(case1.primary, case1.fallback).generate(request)).rejects.toBe(rateLimited);
    const case2 = providers();
    case2.primary.fail('compose_reply', badKey);
    case2.fallback.fail('compose_reply', down);
    await expect(withFallback(case2.primary, case2.fallback).generate(request)).rejects.toBe(down);
  });

  it('chains: the outermost primary is what fallbackFrom names', async () => {
    const first = new ScriptedProvider({ model: 'm-1' }).fail('compose_reply', new ProviderUnavailableError('scripted', 'down', true));
    const second = new ScriptedProvider({ model: 'm-2' }).fail('compose_reply', new ProviderUnavailableError('scripted', 'down', true));
    const third = new ScriptedProvider({ model: 'm-3' }).answer('compose_reply', fallbackAnswer);
    const response = await withFallback(first, withFallback(second, third)).generate(request);
    expect(response).toMatchObject({ model: 'm-3', fallbackFrom: 'scripted/m-1' });
  });

  it('shows the switch in usage records', async () => {
    const { primary, fallback } = providers();
    primary.fail('compose_reply', new ProviderUnavailableError('scripted', 'down', true));
    fallback.answer('compose_reply', fallbackAnswer);
    const records: UsageRecord[] = [];
    await withUsageReporting(withFallback(primary, fallback), { record: (r) => void records.push(r) }).generate(request);
    expect(records).toEqual([
      expect.objectContaining({ provider: 'scripted', model: 'small-1', inputTokens: 8, fallbackFrom: 'scripted/big-1', agentId: 'a-1' }),
    ]);
  });
});
