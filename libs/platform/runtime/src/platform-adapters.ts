import { Logger } from '@nestjs/common';
import { ALL_V1_SUBJECTS, TENET_STREAM, toIntegrationEvent } from '@tenet/contracts';
import { EventLogRelay, MongoEventStore, SqliteEventStore, withPublishing, type EventStore } from '@tenet/event-store';
import { InProcessMessageBus, NatsMessageBus, withSubjectNamespace, type MessageBus } from '@tenet/messaging';
import { BullMqScheduler, InProcessScheduler, type Scheduler } from '@tenet/scheduling';
import type { PlatformConfig } from './platform-config.js';

/** The ports a Tenet process runs on, chosen by configuration. */
export interface PlatformAdapters {
  config: PlatformConfig;
  /** The event log; appends kick the relay that publishes to the bus. */
  eventStore: EventStore;
  bus: MessageBus;
  scheduler: Scheduler;
  relay: EventLogRelay;
  describe(): Record<string, string>;
  close(): Promise<void>;
}

const relayLogger = new Logger('EventLogRelay');

/** The JetStream stream that holds every published v1 integration event. */
export const tenetStream = { name: TENET_STREAM, subjects: [ALL_V1_SUBJECTS] };

async function openEventLog(config: PlatformConfig): Promise<{ store: EventStore; kind: string }> {
  if (config.mode === 'distributed' && config.mongoUrl !== undefined) {
    const dbName = new URL(config.mongoUrl).pathname.replace(/^\//, '') || 'tenet';
    return { store: await MongoEventStore.connect({ uri: config.mongoUrl, dbName }), kind: `mongodb (${dbName})` };
  }
  const store = SqliteEventStore.open({ dataDir: config.dataDir });
  return { store, kind: `sqlite (${store.file})` };
}

/** The bus alone, for stateless services (the guideline matcher) that keep no log and arm no timers. */
export async function openBus(config: PlatformConfig): Promise<MessageBus> {
  const bus: MessageBus =
    config.mode === 'distributed'
      ? await NatsMessageBus.connect({ servers: config.natsUrl, name: config.serviceName, streams: [tenetStream] })
      : new InProcessMessageBus({ streams: [tenetStream] });
  return config.namespace === undefined ? bus : withSubjectNamespace(bus, config.namespace);
}

/**
 * Opens every adapter for the configured mode — embedded: SQLite log, in-process bus and timers;
 * distributed: NATS JetStream, BullMQ on Redis, and MongoDB (or SQLite without MONGO_URL) — and wires the
 * relay that publishes session events from the log to the bus. If any adapter fails to open, the ones
 * already opened are closed again before the error propagates.
 */
export async function openPlatform(config: PlatformConfig): Promise<PlatformAdapters> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    const bus = await openBus(config);
    opened.push(bus);
    const scheduler: Scheduler = config.mode === 'distributed' ? BullMqScheduler.fromUrl(config.redisUrl, { prefix: config.redisPrefix }) : new InProcessScheduler();
    opened.push(scheduler);
    const { store, kind } = await openEventLog(config);
    opened.push(store);
    const relay = new EventLogRelay({
      store,
      publisher: bus,
      route: (event) => toIntegrationEvent(event),
      checkpointName: 'tenet.v1.relay',
      // One checkpoint write per 250 ms instead of one per event under light load; a crash republishes at most
      // that much, and JetStream drops the duplicates by event id.
      checkpointEveryMs: 250,
      onError: (error, failure) =>
        relayLogger.warn(
          `publishing ${failure.event ? `event ${failure.event.id} (position ${failure.event.position})` : 'from the event log'} failed (attempt ${failure.attempt}), retrying in ${failure.retryInMs} ms: ${error instanceof Error ? error.message : String(error)}`,
        ),
    });
    const eventStore = withPublishing(store, relay);
    return {
      config,
      eventStore,
      bus,
      scheduler,
      relay,
      describe: () => ({
        mode: config.mode,
        event_log: kind,
        bus: `${config.mode === 'distributed' ? `nats jetstream (${config.natsUrl})` : 'in-process'}${config.namespace ? `, namespace ${config.namespace}` : ''}`,
        scheduler: config.mode === 'distributed' ? `bullmq (${config.redisUrl})` : 'in-process',
      }),
      async close() {
        await eventStore.close(); // stops the relay first, then closes the log
        await scheduler.close();
        await bus.close();
      },
    };
  } catch (error) {
    for (const adapter of opened.reverse()) await adapter.close().catch(() => undefined);
    throw error;
  }
}
