import { RateLimitedError } from '../errors.js';
import { composeReplyRequest, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import { matchGuidelinesRequest, type MatchGuidelinesInput } from '../tasks/match-guidelines.js';
import { llmProviderConformance } from './llm-provider.conformance.js';
import { ScriptedProvider, ScriptExhaustedError } from './scripted-provider.js';

llmProviderConformance('scripted', async () => ({
  provider: new ScriptedProvider()
    .answerAlways<MatchGuidelinesInput>('match_guidelines', ({ task }) => ({
      matches: task.input.guidelines.map((g) => ({ guideline_id: g.id, relevance: 0.5, confidence: 0.5, reasoning: 'scripted' })),
    }))
    .answerAlways('compose_reply', () => ({ message: 'Scripted reply.', cited_guideline_ids: [] })),
  dispose: async () => undefined,
}));

const context = { purpose: 'test', sessionId: 's-1' };
const replyTo = (message: string) => composeReplyRequest({ agentName: 'A', message, matched: [], history: [] }, context);
const matchFor = (message: string) => matchGuidelinesRequest({ message, history: [], guidelines: [{ id: 'g1', condition: 'c' }] }, context);

describe('ScriptedProvider', () => {
  it('answers each task kind from its own queue, in order, and records every request', async () => {
    const llm = new ScriptedProvider()
      .answer('compose_reply', { message: 'first', cited_guideline_ids: [] }, { message: 'second', cited_guideline_ids: ['g1'] })
      .answer('match_guidelines', { matches: [] });
    expect((await llm.generate<unknown, ComposeReplyOutput>(replyTo('a'))).value.message).toBe('first');
    expect((await llm.generate(matchFor('b'))).value).toEqual({ matches: [] });
    expect((await llm.generate<unknown, ComposeReplyOutput>(replyTo('c'))).value.message).toBe('second');
    expect(llm.requests.map((r) => r.task.kind)).toEqual(['compose_reply', 'match_guidelines', 'compose_reply']);
    expect(llm.requestsFor('compose_reply').map((r) => (r.task.input as { message: string }).message)).toEqual(['a', 'c']);
    expect(llm.remaining()).toEqual({});
  });

  it('computes answers from the request', async () => {
    const llm = new ScriptedProvider().answerWith<MatchGuidelinesInput>('match_guidelines', ({ task }) => ({
      matches: task.input.guidelines.map((g) => ({
        guideline_id: g.id,
        relevance: 1,
        confidence: 1,
        reasoning: `because ${task.input.message}`,
      })),
    }));
    expect((await llm.generate(matchFor('refund'))).value).toEqual({
      matches: [{ guideline_id: 'g1', relevance: 1, confidence: 1, reasoning: 'because refund', tool_arguments: [] }],
    });
  });

  it('reports the configured usage, fixed or per request', async () => {
    const fixed = new ScriptedProvider({ usage: { inputTokens: 7, outputTokens: 3 }, model: 'm' }).answer('compose_reply', {
      message: 'x',
      cited_guideline_ids: [],
    });
    expect(await fixed.generate(replyTo('a'))).toMatchObject({
      usage: { inputTokens: 7, outputTokens: 3 },
      provider: 'scripted',
      model: 'm',
    });
    const perRequest = new ScriptedProvider({
      usage: (r) => ({ inputTokens: r.messages!.at(-1)!.content.length, outputTokens: 1 }),
    }).answer('compose_reply', { message: 'x', cited_guideline_ids: [] });
    expect((await perRequest.generate(replyTo('abc'))).usage.inputTokens).toBeGreaterThan(3);
  });

  it('throws scripted failures', async () => {
    const llm = new ScriptedProvider()
      .fail('compose_reply', new RateLimitedError('scripted', 500, 'slow down'))
      .answer('compose_reply', { message: 'ok', cited_guideline_ids: [] });
    await expect(llm.generate(replyTo('a'))).rejects.toMatchObject({ code: 'LLM.RATE_LIMITED', retryAfterMs: 500 });
    await expect(llm.generate(replyTo('a'))).resolves.toMatchObject({ value: { message: 'ok' } });
  });

  it('fails clearly when the script runs out, naming the task kind and the call', async () => {
    const llm = new ScriptedProvider().answer('compose_reply', { message: 'only one', cited_guideline_ids: [] });
    await llm.generate(replyTo('a'));
    const exhausted = llm.generate(replyTo('b'));
    await expect(exhausted).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(llm.generate(replyTo('c'))).rejects.toThrow('no answer left for task "compose_reply" (call #3');
    await expect(llm.generate(matchFor('d'))).rejects.toThrow('"match_guidelines" (call #1');
  });

  it('validates scripted answers against the request schema, like a real provider', async () => {
    const llm = new ScriptedProvider().answer('compose_reply', { message: 'x' });
    await expect(llm.generate(replyTo('a'))).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/cited_guideline_ids' });
  });

  it('keeps unused answers visible', async () => {
    const llm = new ScriptedProvider().answer(
      'compose_reply',
      { message: 'x', cited_guideline_ids: [] },
      { message: 'y', cited_guideline_ids: [] },
    );
    await llm.generate(replyTo('a'));
    expect(llm.remaining()).toEqual({ compose_reply: 1 });
  });
});
