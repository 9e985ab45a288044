import {
  appendTogether,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
  type StreamAppend,
} from '../event-store.port.js';
import type { EventLogRelay } from './event-log-relay.js';

/**
 * An EventStore whose appends kick the relay once they have committed, so events are published promptly
 * instead of at the next poll. The kick hands over the committed events, which the leading relay publishes
 * without reading them back when they continue its checkpoint (ADR 0037); the checkpoint still moves only over
 * what was acknowledged and everything else is read from the log, which is why a crash between commit and
 * publish loses nothing. When this process's relay is a standby (another
 * process holds the publishing lease), the relay forwards the kick to the leader over its `wakeups` channel.
 */
export class PublishingEventStore implements EventStore {
  /** Present when the wrapped store has it (it promises all or none): the relay is handed every batch's events. */
  readonly appendMany?: (appends: readonly StreamAppend[]) => Promise<AppendResult[]>;

  constructor(
    private readonly store: EventStore,
    private readonly relay: Pick<EventLogRelay, 'kick' | 'stop'>,
  ) {
    if (store.appendMany !== undefined)
      this.appendMany = async (appends) => {
        // The wrapped store's appendMany (it has one): one transaction, all or none.
        const results = await appendTogether(this.store, appends);
        // One transaction: consecutive positions, handed over in log order as one append's would be.
        this.relay.kick(results.flatMap((result) => result.events).sort((a, b) => a.position - b.position));
        return results;
      };
  }

  async append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    const result = await this.store.append(streamId, events, options);
    this.relay.kick(result.events);
    return result;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return this.store.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    return this.store.readAll(options);
  }

  streamVersion(streamId: string): Promise<number> {
    return this.store.streamVersion(streamId);
  }

  loadCheckpoint(name: string): Promise<number> {
    return this.store.loadCheckpoint(name);
  }

  saveCheckpoint(name: string, position: number): Promise<void> {
    return this.store.saveCheckpoint(name, position);
  }

  /** Stops the relay first (it reads this store), then closes the store. */
  async close(): Promise<void> {
    await this.relay.stop();
    await this.store.close();
  }
}

export const withPublishing = (store: EventStore, relay: Pick<EventLogRelay, 'kick' | 'stop'>): EventStore =>
  new PublishingEventStore(store, relay);
