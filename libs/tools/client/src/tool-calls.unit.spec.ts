import { isStale } from '@tenet/catalog-data-access';
import { callDeadlineMs, toolFieldValues, toOutcome } from './tool-calls.js';

describe('tool calls of a turn', () => {
  it('gives the executor every attempt, the backoff between them and some slack before it gives up', () => {
    expect(callDeadlineMs({ timeout_secs: 5 })).toBe(5_000 + 10_000);
    // 3 attempts of 2 s, waits of 100 ms then 300 ms.
    expect(callDeadlineMs({ timeout_secs: 2, retry_config: { max_attempts: 3, delay_ms: 100, backoff_multiplier: 3 } })).toBe(
      6_000 + 400 + 10_000,
    );
  });

  it("reads a succeeded call's data and a failed call's code for the model", () => {
    const ok = toOutcome(
      's:t',
      { a: 1 },
      {
        idempotency_key: 'k',
        tool_id: 's:t',
        status: 'succeeded',
        result: { data: { status: 'shipped' }, metadata: {}, control: {} },
        attempts: 1,
        duration_ms: 3,
        replayed: false,
      },
    );
    expect(ok).toEqual({ tool_id: 's:t', arguments: { a: 1 }, status: 'succeeded', data: { status: 'shipped' } });
    const failed = toOutcome(
      's:t',
      {},
      {
        idempotency_key: 'k',
        tool_id: 's:t',
        status: 'failed',
        error: { code: 'TOOLS.TIMEOUT', message: 'took too long' },
        attempts: 2,
        duration_ms: 3,
        replayed: false,
      },
    );
    expect(failed).toEqual({ tool_id: 's:t', arguments: {}, status: 'failed', error: 'TOOLS.TIMEOUT: took too long' });
  });

  it("offers the scalar fields of succeeded calls' data as canned-response fields", () => {
    expect(
      toolFieldValues([
        { tool_id: 'a', arguments: {}, status: 'succeeded', data: { status: 'shipped', count: 2, items: [1] } },
        { tool_id: 'b', arguments: {}, status: 'failed', error: 'x' },
        { tool_id: 'c', arguments: {}, status: 'succeeded', data: 'text' },
      ]),
    ).toEqual({ status: 'shipped', count: '2' });
  });
});

describe('freshness of a tool-backed context variable', () => {
  const now = new Date('2026-05-01T11:05:00Z');
  it('is stale without a value, and after a tick of its rule since it was fetched', () => {
    expect(isStale(undefined, '0 * * * *', now)).toBe(true);
    expect(isStale('2026-05-01T10:20:00Z', '0 * * * *', now)).toBe(true);
    expect(isStale('2026-05-01T11:01:00Z', '0 * * * *', now)).toBe(false);
  });
  it('without a rule is fetched once and kept', () => {
    expect(isStale('2020-01-01T00:00:00Z', undefined, now)).toBe(false);
  });
});
