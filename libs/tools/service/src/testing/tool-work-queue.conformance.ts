import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolCallRequestV1, ToolCallResultV1 } from '@tenet/contracts';
import { ToolExecutorUnavailableError } from '../errors.js';
import type { ToolCallHandler, ToolWorkQueue } from '../queue/tool-work-queue.port.js';

/** One test's queue: `caller()` submits, `executor()` processes (the same object for in-process adapters). */
export interface ToolWorkQueueHarness {
  caller(): Promise<ToolWorkQueue>;
  executor(): Promise<ToolWorkQueue>;
  dispose(): Promise<void>;
}

const request = (key = `k_${randomUUID()}`, args: Record<string, unknown> = {}): ToolCallRequestV1 => ({
  idempotency_key: key,
  session_id: 's_queue',
  trace_id: 't_1',
  agent_id: 'agent_1',
  service: { name: 'svc', kind: 'sdk', url: 'http://tools.example.com' },
  tool_name: 'echo',
  arguments: args,
  timeout_secs: 10,
});

/**
 * The contract of every `ToolWorkQueue` adapter: a call runs once per idempotency key (repeat → the recorded
 * result, `replayed: true`; concurrent repeats join the running call), a caller deadline throws
 * `ToolExecutorUnavailableError` without cancelling the call, and an executor fault is not recorded as a result.
 */
export function toolWorkQueueConformance(name: string, harness: () => Promise<ToolWorkQueueHarness>): void {
  describe(`${name} (ToolWorkQueue conformance)`, () => {
    let h: ToolWorkQueueHarness;
    let caller: ToolWorkQueue;
    let runs: Map<string, number>;
    let behaviour: (request: ToolCallRequestV1) => Promise<ToolCallResultV1>;

    const result = (call: ToolCallRequestV1): ToolCallResultV1 => ({
      idempotency_key: call.idempotency_key,
      tool_id: 'svc:echo',
      status: 'succeeded',
      result: { data: call.arguments, metadata: {}, control: {} },
      attempts: 1,
      duration_ms: 1,
      replayed: false,
    });

    beforeAll(async () => {
      h = await harness();
      runs = new Map();
      behaviour = async (call) => result(call);
      const handler: ToolCallHandler = async (call) => {
        runs.set(call.idempotency_key, (runs.get(call.idempotency_key) ?? 0) + 1);
        return behaviour(call);
      };
      await (await h.executor()).process(handler, { concurrency: 8 });
      caller = await h.caller();
    });
    afterAll(async () => {
      await h.dispose();
    });

    it('runs a submitted call and returns its result', async () => {
      const call = request(undefined, { n: 1 });
      await expect(caller.submit(call, { deadlineMs: 30_000 })).resolves.toEqual(result(call));
      expect(runs.get(call.idempotency_key)).toBe(1);
    });

    it('returns the recorded result for a repeated key without running it again', async () => {
      const call = request(undefined, { n: 2 });
      await caller.submit(call, { deadlineMs: 30_000 });
      const again = await caller.submit(call, { deadlineMs: 30_000 });
      expect(again).toEqual({ ...result(call), replayed: true });
      expect(runs.get(call.idempotency_key)).toBe(1);
    });

    it('joins concurrent submits of one key into one run', async () => {
      behaviour = async (call) => {
        await sleep(300);
        return result(call);
      };
      const call = request(undefined, { n: 3 });
      const outcomes = await Promise.all([
        caller.submit(call, { deadlineMs: 30_000 }),
        caller.submit(call, { deadlineMs: 30_000 }),
        caller.submit(call, { deadlineMs: 30_000 }),
      ]);
      expect(outcomes.map((outcome) => outcome.result?.data)).toEqual([{ n: 3 }, { n: 3 }, { n: 3 }]);
      expect(runs.get(call.idempotency_key)).toBe(1);
      behaviour = async (c) => result(c);
    });

    it("throws ToolExecutorUnavailableError at the caller's deadline; the call still completes and is then replayed", async () => {
      behaviour = async (call) => {
        await sleep(1_500);
        return result(call);
      };
      const call = request(undefined, { n: 4 });
      await expect(caller.submit(call, { deadlineMs: 200 })).rejects.toBeInstanceOf(ToolExecutorUnavailableError);
      const later = await caller.submit(call, { deadlineMs: 30_000 });
      expect(later).toMatchObject({ replayed: true, result: { data: { n: 4 } } });
      expect(runs.get(call.idempotency_key)).toBe(1);
      behaviour = async (c) => result(c);
    });

    it('does not keep an executor fault as the result: the next submit runs the call again', async () => {
      behaviour = async () => {
        throw new Error('event log unavailable');
      };
      const call = request(undefined, { n: 5 });
      await expect(caller.submit(call, { deadlineMs: 60_000 })).rejects.toThrow();
      behaviour = async (c) => result(c);
      const retried = await caller.submit(call, { deadlineMs: 30_000 });
      expect(retried.result?.data).toEqual({ n: 5 });
      expect(runs.get(call.idempotency_key)).toBeGreaterThanOrEqual(2);
    });
  });
}
