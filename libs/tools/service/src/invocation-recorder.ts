import { toolStreamId, type ToolInvocationData } from '@tenet/contracts';
import { ConcurrencyError, type EventStore } from '@tenet/event-store';
import { decideRecordInvocation, evolveInvocationLog, type InvocationLog, type InvocationOutcome } from '@tenet/tools-domain';
import type { InvocationRecorder } from './tool-runner.js';

/**
 * Records ToolInvocations in the `tools-<session_id>` stream of the event log; the relay publishes them as
 * `tenet.v1.tool.<session_id>.invocation_completed|invocation_failed`. At most one record per idempotency key:
 * the decider reads the stream and the append expects its version (a concurrent writer makes it re-read).
 */
export class EventLogInvocationRecorder implements InvocationRecorder {
  constructor(private readonly events: EventStore) {}

  async record(outcome: InvocationOutcome): Promise<void> {
    const stream = toolStreamId(outcome.session_id);
    for (let attempt = 0; ; attempt++) {
      const stored = await this.events.readStream(stream);
      const log = stored.reduce<InvocationLog>(evolveInvocationLog, new Set());
      const decided = decideRecordInvocation(log, outcome);
      if (decided.length === 0) return;
      try {
        await this.events.append(
          stream,
          decided.map((event) => ({ type: event.type, data: event.data satisfies ToolInvocationData })),
          { expectedVersion: stored.length === 0 ? 'no_stream' : (stored.at(-1)?.offset ?? -1) },
        );
        return;
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || attempt >= 5) throw error;
      }
    }
  }
}

/** Keeps records in memory (tests, benchmarks). */
export class MemoryInvocationRecorder implements InvocationRecorder {
  readonly records: InvocationOutcome[] = [];
  record(outcome: InvocationOutcome): Promise<void> {
    if (!this.records.some((record) => record.invocation_id === outcome.invocation_id)) this.records.push(outcome);
    return Promise.resolve();
  }
}
