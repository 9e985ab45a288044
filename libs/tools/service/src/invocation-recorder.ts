import { toolStreamId, type ToolInvocationData } from '@tenet/contracts';
import { InvalidEventError, type EventStore } from '@tenet/event-store';
import { invocationRecord, type InvocationOutcome } from '@tenet/tools-domain';
import type { InvocationRecorder } from './tool-runner.js';

/**
 * Records ToolInvocations in the `tools-<session_id>` stream of the event log; the relay publishes them as
 * `tenet.v1.tool.<session_id>.invocation_completed|invocation_failed`. At most one record per idempotency key:
 * the event id is derived from the key, and the log refuses an id it already holds (a redone job's record).
 */
export class EventLogInvocationRecorder implements InvocationRecorder {
  constructor(private readonly events: EventStore) {}

  async record(outcome: InvocationOutcome, stamp: { workspaceId?: string } = {}): Promise<void> {
    const record = invocationRecord(outcome);
    // The workspace rides in the metadata: this log has no ownership index for the relay to resolve it from.
    const metadata = stamp.workspaceId !== undefined ? { metadata: { workspace_id: stamp.workspaceId } } : {};
    try {
      await this.events.append(toolStreamId(outcome.session_id), [
        { id: record.id, type: record.type, data: record.data satisfies ToolInvocationData, ...metadata },
      ]);
    } catch (error) {
      if (error instanceof InvalidEventError && error.field === 'events[0].id' && error.rule.startsWith('already used')) return;
      throw error;
    }
  }
}

/** Keeps records in memory (tests), one per idempotency key. */
export class MemoryInvocationRecorder implements InvocationRecorder {
  readonly records: InvocationOutcome[] = [];
  record(outcome: InvocationOutcome): Promise<void> {
    if (!this.records.some((record) => record.invocation_id === outcome.invocation_id)) this.records.push(outcome);
    return Promise.resolve();
  }
}
