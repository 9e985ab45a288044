import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { statfs } from 'node:fs/promises';
import { Logger } from '@nestjs/common';
import { ALL_V1_SUBJECTS, ALL_V2_SUBJECTS, TENET_STREAM, TENET_STREAM_V2, toIntegrationEvent } from '@tenet/contracts';
import {
  connectMongoEventStore,
  EventLogRelay,
  SqliteEventStore,
  withPublishing,
  type EventLogRelayOptions,
  type EventStore,
} from '@tenet/event-store';
import {
  InProcessMessageBus,
  NatsMessageBus,
  namespacedStream,
  withSubjectNamespace,
  type MessageBus,
  type StreamSpec,
} from '@tenet/messaging';
import { BullMqScheduler, InProcessScheduler, type Scheduler } from '@tenet/scheduling';
import { DEFAULT_STREAM_LIMITS, type PlatformConfig } from './platform-config.js';
import { EventWorkspaces, publishedEvents } from './event-workspaces.js';
import { LEASE_BUCKET, mongoLogName, openRelayLeadership } from './relay-leadership.js';

/** The ports a Tenet process runs on, chosen by configuration. */
export interface PlatformAdapters {
  config: PlatformConfig;
  /** The event log; appends kick the relay that publishes to the bus. */
  eventStore: EventStore;
  bus: MessageBus;
  scheduler: Scheduler;
  relay: EventLogRelay;
  /** What `/readyz` checks: the bus, the scheduler's store and the event log, each reachable and working. */
  readiness: ReadinessCheck[];
  describe(): Record<string, string>;
  close(): Promise<void>;
}

/** One dependency a process needs to serve: ready when `check` resolves (readiness, not liveness). */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const relayLogger = new Logger('EventLogRelay');
const busLogger = new Logger('MessageBus');
const schedulerLogger = new Logger('Scheduler');

/** The JetStream stream that holds every published v1 integration event (of the unnamespaced deployment). */
export const tenetStream = { name: TENET_STREAM, subjects: [ALL_V1_SUBJECTS] };
/** Its v2 twin: the same events under `tenet.v2.<workspace>.…` (ADR 0018). */
export const tenetStreamV2 = { name: TENET_STREAM_V2, subjects: [ALL_V2_SUBJECTS] };

/**
 * The v1 stream of this deployment: its own per namespace (`TENET_V1_<ns>` on `<ns>.tenet.v1.>`), with the limits
 * TENET_STREAM_* set applied on every start and the defaults only when it is created.
 */
export function tenetStreamFor(config: Pick<PlatformConfig, 'namespace' | 'streamLimits'>): StreamSpec {
  return namespacedStream({ ...tenetStream, ...config.streamLimits, initial: DEFAULT_STREAM_LIMITS }, config.namespace);
}

/** Both streams of this deployment (v1 and v2), namespaced and limited alike. */
export function tenetStreamsFor(config: Pick<PlatformConfig, 'namespace' | 'streamLimits'>): StreamSpec[] {
  return [
    tenetStreamFor(config),
    namespacedStream({ ...tenetStreamV2, ...config.streamLimits, initial: DEFAULT_STREAM_LIMITS }, config.namespace),
  ];
}

/** A checkpoint write proves the log takes writes; its value (a time) is read by nothing. */
const READINESS_CHECKPOINT = 'tenet.readiness-probe';

/** The relay's checkpoint in the event log, shared by every process on that log. */
const RELAY_CHECKPOINT = 'tenet.v1.relay';

/**
 * The log, a description for health output, and a name every process on the same log derives alike. The
 * description is public (`/healthz`): adapter kinds only, no file paths, URLs or credentials.
 */
async function openEventLog(config: PlatformConfig): Promise<{ store: EventStore; kind: string; log: string }> {
  if (config.mode === 'distributed' && config.mongoUrl !== undefined) {
    const dbName = new URL(config.mongoUrl).pathname.replace(/^\//, '') || 'tenet';
    return {
      store: await connectMongoEventStore({ uri: config.mongoUrl, dbName }),
      kind: `mongodb (${dbName})`,
      log: mongoLogName(config.mongoUrl, dbName),
    };
  }
  const store = SqliteEventStore.open({ dataDir: config.dataDir, tailCache: { streams: config.eventTailCacheStreams } });
  return { store, kind: 'sqlite', log: `sqlite:${realpathSync(store.file)}` };
}

/** The bus as services see it (namespaced), and the NATS adapter underneath in distributed mode. */
async function connectBus(config: PlatformConfig): Promise<{ bus: MessageBus; nats?: NatsMessageBus }> {
  const namespaced = (bus: MessageBus): MessageBus => (config.namespace === undefined ? bus : withSubjectNamespace(bus, config.namespace));
  // In process the stream is a buffer, not the record (that is the event log): it keeps its own bound.
  if (config.mode !== 'distributed')
    return {
      bus: namespaced(
        new InProcessMessageBus({ streams: [tenetStream, tenetStreamV2].map((stream) => namespacedStream(stream, config.namespace)) }),
      ),
    };
  const nats = await NatsMessageBus.connect({
    servers: config.natsUrl,
    name: config.serviceName,
    streams: tenetStreamsFor(config),
    onConnectionEvent: (message) => busLogger.warn(message),
  });
  return { bus: namespaced(nats), nats };
}

const natsReadiness = (nats: NatsMessageBus | undefined): ReadinessCheck[] => (nats ? [{ name: 'nats', check: () => nats.ping() }] : []);

/** The bus alone, for stateless services (the guideline matcher) that keep no log and arm no timers. */
export async function openBus(config: PlatformConfig): Promise<{ bus: MessageBus; readiness: ReadinessCheck[] }> {
  const { bus, nats } = await connectBus(config);
  return { bus, readiness: natsReadiness(nats) };
}

/**
 * Readiness of the SQLite log's disk (docs/reliability.md#a-full-disk-under-the-event-log): not ready while less than `minBytes` is free, so a load
 * balancer stops sending writes that would fail (507) before the disk is full, and takes the replica back as soon as
 * space returns — without writing anything to find out.
 */
async function enoughFreeDisk(dir: string, minBytes: number): Promise<void> {
  const stats = await statfs(dir);
  const free = stats.bavail * stats.bsize;
  if (free < minBytes)
    throw new Error(
      `${Math.floor(free / 1024 ** 2)} MiB free on the event log's disk, less than the ${Math.floor(minBytes / 1024 ** 2)} MiB TENET_MIN_FREE_DISK_MB asks for`,
    );
}

/** All-in-one timers and queued work, kept on disk beside the event log (ADR 0003, amendment). */
function openDurableInProcessScheduler(dataDir: string): InProcessScheduler {
  mkdirSync(dataDir, { recursive: true });
  return new InProcessScheduler({ durable: { file: join(dataDir, 'jobs.sqlite') } });
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Opens every adapter for the configured mode — embedded: SQLite log, in-process bus, in-process timers whose jobs
 * are kept in `jobs.sqlite` beside the log (a job acknowledged before a crash runs after the restart);
 * distributed: NATS JetStream, BullMQ on Redis, and MongoDB (or SQLite without MONGO_URL) — and wires the
 * relay that publishes session events from the log to the bus. In distributed mode several processes may share
 * the log: the relay then publishes only while it holds the log's leader lease in NATS KV (ADR 0009), and a
 * standby's appends kick the leader over core NATS. If any adapter fails to open, the ones already opened are
 * closed again before the error propagates.
 */
export async function openPlatform(config: PlatformConfig): Promise<PlatformAdapters> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    const { bus, nats } = await connectBus(config);
    opened.push(bus);
    const scheduler: Scheduler =
      config.mode === 'distributed'
        ? BullMqScheduler.fromUrl(config.redisUrl, {
            prefix: config.redisPrefix,
            onError: (error, context) => schedulerLogger.warn(`${context}: ${error.message}`),
          })
        : openDurableInProcessScheduler(config.dataDir);
    opened.push(scheduler);
    const { store, kind, log } = await openEventLog(config);
    opened.push(store);
    let coordination: Pick<EventLogRelayOptions, 'leadership' | 'wakeups'> = {};
    let leadershipKind = 'sole publisher (embedded)';
    if (nats) {
      const { leadership, wakeups, key } = await openRelayLeadership({
        connection: nats.connection,
        bus,
        config,
        checkpointName: RELAY_CHECKPOINT,
        log,
        onError: (error) => relayLogger.warn(`leader lease: ${describeError(error)}; retrying`),
      });
      coordination = {
        wakeups,
        // Operators see in the log which process publishes, and when that changes.
        leadership: {
          start: (listener) =>
            leadership.start({
              elected: () => {
                relayLogger.log(`leads the relay of ${log} (lease ${key}); publishing`);
                listener.elected();
              },
              deposed: () => {
                relayLogger.warn(`lost the relay lease of ${log} (lease ${key}); standing by`);
                listener.deposed();
              },
            }),
          isLeader: () => leadership.isLeader(),
          stop: () => leadership.stop(),
        },
      };
      leadershipKind = `lease ${key} in NATS KV ${LEASE_BUCKET} (${config.relayLeaseMs} ms)`;
    }
    const relay = new EventLogRelay({
      store,
      publisher: bus,
      // Over NATS every published event goes out twice for v1's deprecation window: v1, and v2 under its workspace
      // (ADR 0018). On the embedded in-process bus nobody outside the process can subscribe and Tenet's own
      // consumers read v1, so v2 — a workspace lookup and a second message per event — would be work for no one.
      route: nats ? publishedEvents(new EventWorkspaces(store)) : (event) => toIntegrationEvent(event),
      checkpointName: RELAY_CHECKPOINT,
      // One checkpoint write per 250 ms instead of one per event under light load; a crash republishes at most
      // that much, and JetStream drops the duplicates by event id.
      checkpointEveryMs: 250,
      ...coordination,
      onError: (error, failure) =>
        relayLogger.warn(
          `publishing ${failure.event ? `event ${failure.event.id} (position ${failure.event.position})` : 'from the event log'} failed (attempt ${failure.attempt}), retrying in ${failure.retryInMs} ms: ${describeError(error)}`,
        ),
    });
    const eventStore = withPublishing(store, relay);
    return {
      config,
      eventStore,
      bus,
      scheduler,
      relay,
      readiness: [
        ...natsReadiness(nats),
        ...(config.mode === 'distributed' ? [{ name: 'redis', check: () => scheduler.ping() }] : []),
        { name: 'event_log', check: () => store.saveCheckpoint(READINESS_CHECKPOINT, Date.now()) },
        ...(kind === 'sqlite' && config.minFreeDiskBytes > 0
          ? [{ name: 'disk', check: () => enoughFreeDisk(config.dataDir, config.minFreeDiskBytes) }]
          : []),
      ],
      describe: () => ({
        mode: config.mode,
        event_log: kind,
        bus: `${config.mode === 'distributed' ? 'nats jetstream' : 'in-process'}${config.namespace ? `, namespace ${config.namespace}` : ''}`,
        scheduler: config.mode === 'distributed' ? 'bullmq' : 'in-process',
        relay_leadership: leadershipKind,
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
