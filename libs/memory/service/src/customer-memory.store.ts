import { randomUUID } from 'node:crypto';
import { CUSTOMER_MEMORY_STREAM_PREFIX } from '@tenet/contracts';
import { ConcurrencyError, type EventStore, type StoredEvent } from '@tenet/event-store';
import {
  decide,
  factsTrueAt,
  factsTrueNow,
  foldMemory,
  type Fact,
  type FactSource,
  type MemoryCommand,
  type MemoryEvent,
  type PredicateCardinality,
} from '@tenet/memory-domain';

/** The stream the relay publishes as `tenet.v1.memory.<customerId>.fact_*` (see libs/contracts). */
export const customerMemoryStream = (customerId: string): string => `${CUSTOMER_MEMORY_STREAM_PREFIX}${customerId}`;

export interface RecordFactInput {
  factId?: string;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  source: FactSource;
  cardinality?: PredicateCardinality;
}

const MAX_ATTEMPTS = 5;

/**
 * A customer's facts as events in the event log, one stream per customer: the decider's events are appended
 * with the stream version the decision was made on, so two concurrent recordings cannot both supersede the
 * same fact (the loser re-reads and decides again).
 */
export class CustomerMemoryStore {
  constructor(
    private readonly events: EventStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** `stamp.workspaceId`: published under that workspace (ADR 0018) — this log may not hold the ownership index. */
  async record(
    customerId: string,
    input: RecordFactInput,
    stamp: { workspaceId?: string } = {},
  ): Promise<{ fact: Fact | undefined; events: MemoryEvent[] }> {
    const factId = input.factId ?? randomUUID();
    const events = await this.execute(customerId, (now) => ({ type: 'RecordFact', customerId, factId, ...input, now }), stamp);
    const recorded = events.find((e) => e.type === 'FactRecorded');
    return { fact: recorded?.type === 'FactRecorded' ? recorded.data : undefined, events };
  }

  forget(customerId: string, factId: string, reason?: string): Promise<MemoryEvent[]> {
    return this.execute(customerId, (now) => ({ type: 'ForgetFact', customerId, factId, ...(reason ? { reason } : {}), now }));
  }

  /** Facts believed now, or at `at` when given. */
  async facts(customerId: string, at?: Date): Promise<Fact[]> {
    const state = foldMemory(await this.load(customerId));
    return at ? factsTrueAt(state, at.getTime()) : factsTrueNow(state);
  }

  private async load(customerId: string): Promise<MemoryEvent[]> {
    return (await this.events.readStream(customerMemoryStream(customerId))).map(toMemoryEvent);
  }

  private async execute(
    customerId: string,
    command: (now: number) => MemoryCommand,
    stamp: { workspaceId?: string } = {},
  ): Promise<MemoryEvent[]> {
    const streamId = customerMemoryStream(customerId);
    for (let attempt = 1; ; attempt++) {
      const stored = await this.events.readStream(streamId);
      const version = stored.length - 1;
      const decided = decide(command(this.now().getTime()), foldMemory(stored.map(toMemoryEvent)));
      if (decided.length === 0) return [];
      try {
        await this.events.append(
          streamId,
          decided.map((e) => ({
            type: e.type,
            data: e.data,
            metadata: { customerId, ...(stamp.workspaceId !== undefined ? { workspace_id: stamp.workspaceId } : {}) },
          })),
          { expectedVersion: version },
        );
        return decided;
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}

function toMemoryEvent(event: StoredEvent): MemoryEvent {
  return { type: event.type, data: event.data } as MemoryEvent;
}
