import { InvalidStructuredOutputError } from '../errors.js';
import { composeReplyRequest, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { generateWithRepair } from './repair.js';
import { generateWithRecovery, withFallback } from './with-fallback.js';

const request = {
  ...composeReplyRequest({ agentName: 'A', message: 'hi', matched: [], history: [] }, { purpose: 'compose_reply', agentId: 'a-1' }),
  temperature: 0.3,
};
const valid = { message: 'Hello!', cited_guideline_ids: [], canned_response_id: '' };
/** Out of schema: `message` must be a string. */
const broken = { message: 42, cited_guideline_ids: [], canned_response_id: '' };
const lastMessage = (r: { messages?: { content: string }[] }): string => r.messages?.at(-1)?.content ?? '';

describe('schema repair, then the fallback, then the error', () => {
  it('given an answer out of schema, when generating, then the model is asked once more with the validation error and its answer is used', async () => {
    const provider = new ScriptedProvider();
    provider.answer('compose_reply', broken, valid);
    const outcome = await generateWithRepair<unknown, ComposeReplyOutput>(provider, request, 0.7);
    expect(outcome).toMatchObject({ repaired: true, response: { value: valid } });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.temperature).toBe(0.7);
    expect(lastMessage(provider.requests[1]!)).toContain('/message');
    expect(lastMessage(provider.requests[1]!)).toContain('did not match');
  });

  it('given a valid first answer, when generating, then there is one call and no repair', async () => {
    const provider = new ScriptedProvider();
    provider.answer('compose_reply', valid);
    await expect(generateWithRepair(provider, request)).resolves.toMatchObject({ repaired: false });
    expect(provider.requests).toHaveLength(1);
  });

  it('given a primary out of schema twice, when the agent has a fallback, then the fallback answers after exactly one repair', async () => {
    const primary = new ScriptedProvider({ model: 'big-1' });
    const fallback = new ScriptedProvider({ model: 'small-1' });
    primary.answer('compose_reply', broken, broken);
    fallback.answer('compose_reply', valid);
    const outcome = await generateWithRecovery<unknown, ComposeReplyOutput>(withFallback(primary, fallback), request, 0.7);
    expect(outcome.response).toMatchObject({ value: valid, model: 'small-1', fallbackFrom: 'scripted/big-1' });
    expect(primary.requests).toHaveLength(2);
    expect(fallback.requests).toHaveLength(1);
  });

  it('given every answer out of schema, when generating, then it fails with LLM.INVALID_OUTPUT after repair and fallback — no blind third attempt', async () => {
    const primary = new ScriptedProvider({ model: 'big-1' });
    const fallback = new ScriptedProvider({ model: 'small-1' });
    primary.answer('compose_reply', broken, broken, broken);
    fallback.answer('compose_reply', broken, broken);
    await expect(generateWithRecovery(withFallback(primary, fallback), request)).rejects.toBeInstanceOf(InvalidStructuredOutputError);
    expect(primary.requests).toHaveLength(2);
    expect(fallback.requests).toHaveLength(1);
    const alone = new ScriptedProvider();
    alone.answer('compose_reply', broken, broken, broken);
    await expect(generateWithRecovery(alone, request)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT' });
    expect(alone.requests).toHaveLength(2);
  });

  it('given a cancelled request, when generating, then nothing is sent', async () => {
    const provider = new ScriptedProvider();
    provider.answer('compose_reply', valid);
    const controller = new AbortController();
    controller.abort();
    await expect(generateWithRepair(provider, { ...request, signal: controller.signal })).rejects.toMatchObject({
      code: 'LLM.UNAVAILABLE',
      retryable: false,
    });
    expect(provider.requests).toHaveLength(0);
  });
});
