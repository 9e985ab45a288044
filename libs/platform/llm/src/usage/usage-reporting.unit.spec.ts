import { AuthenticationError } from '../errors.js';
import { composeReplyRequest } from '../tasks/compose-reply.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { withUsageReporting, type UsageRecord, type UsageSink } from './usage-reporting.js';

const at = new Date('2026-03-01T10:00:00Z');
const request = (context: { purpose: string; sessionId?: string; agentId?: string }) =>
  composeReplyRequest({ agentName: 'A', message: 'hi', matched: [], history: [] }, context);
const answer = { message: 'Hello!', cited_guideline_ids: [], canned_response_id: '', cited_chunk_ids: [] };

function recordingSink(): UsageSink & { records: UsageRecord[] } {
  const records: UsageRecord[] = [];
  return { records, record: (usage) => void records.push(usage) };
}

describe('withUsageReporting', () => {
  it('records every successful call with its attribution, and returns the response unchanged', async () => {
    const inner = new ScriptedProvider({ model: 'scripted-9', usage: { inputTokens: 120, outputTokens: 30 } }).answer(
      'compose_reply',
      answer,
      answer,
    );
    const sink = recordingSink();
    const llm = withUsageReporting(inner, sink, () => at);
    const response = await llm.generate(request({ purpose: 'compose_reply', sessionId: 's-1', agentId: 'a-1' }));
    await llm.generate(request({ purpose: 'greeting' }));
    expect(response.value).toEqual(answer);
    expect(sink.records).toEqual([
      {
        provider: 'scripted',
        model: 'scripted-9',
        inputTokens: 120,
        outputTokens: 30,
        purpose: 'compose_reply',
        sessionId: 's-1',
        agentId: 'a-1',
        at,
        latencyMs: response.latencyMs,
      },
      {
        provider: 'scripted',
        model: 'scripted-9',
        inputTokens: 120,
        outputTokens: 30,
        purpose: 'greeting',
        at,
        latencyMs: expect.any(Number) as unknown,
      },
    ]);
    expect(llm.name).toBe('scripted');
    expect(llm.model).toBe('scripted-9');
  });

  it('passes provider errors through untouched and records nothing', async () => {
    const failure = new AuthenticationError('scripted', 'bad key');
    const sink = recordingSink();
    const llm = withUsageReporting(new ScriptedProvider().fail('compose_reply', failure), sink);
    await expect(llm.generate(request({ purpose: 'p' }))).rejects.toBe(failure);
    expect(sink.records).toEqual([]);
  });

  it('waits for the sink, and fails the call when usage cannot be recorded', async () => {
    const inner = new ScriptedProvider().answer('compose_reply', answer, answer);
    let stored = 0;
    const slowSink: UsageSink = { record: () => new Promise<void>((resolve) => setImmediate(() => resolve(void stored++))) };
    await withUsageReporting(inner, slowSink).generate(request({ purpose: 'p' }));
    expect(stored).toBe(1);
    const brokenSink: UsageSink = { record: async () => Promise.reject(new Error('metering store down')) };
    await expect(withUsageReporting(inner, brokenSink).generate(request({ purpose: 'p' }))).rejects.toThrow('metering store down');
  });
});
