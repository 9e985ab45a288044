/**
 * The event-log relay publishing every event twice (v1, and v2 under its workspace, ADR 0018) against the same
 * relay publishing v1 only — the floor, measured in the same run, round by round.
 *
 *   npm run bench:relay-workspaces      (needs NATS with JetStream on NATS_URL, default 127.0.0.1:4222)
 *
 * A SQLite log holds BENCH_SESSIONS sessions (default 200) of two workspaces, each opened for an assigned agent,
 * with BENCH_EVENTS_PER_SESSION customer messages (default 10). Each round a fresh relay (fresh checkpoint, fresh
 * workspace resolver: a cold cache, the worst case) publishes the whole log into fresh streams (no duplicates)
 * and the time to `publishedUpTo` = the log's end is taken. Prints a Markdown row and writes
 * docs/benchmarks/relay-workspaces.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  ALL_V1_SUBJECTS,
  ALL_V2_SUBJECTS,
  ownerStreamId,
  RESOURCE_ASSIGNED_EVENT_TYPE,
  sessionMetaStreamId,
  sessionStreamId,
  toIntegrationEvent,
  toWorkspaceEvent,
} from '@tenet/contracts';
import { EventLogRelay, SqliteEventStore, type EventRoute, type EventStore } from '@tenet/event-store';
import { NatsMessageBus, namespacedStream, withSubjectNamespace } from '@tenet/messaging';
import { EventWorkspaces, publishedEvents } from '@tenet/platform-runtime';

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SESSIONS = Number(process.env['BENCH_SESSIONS'] ?? 200);
const PER_SESSION = Number(process.env['BENCH_EVENTS_PER_SESSION'] ?? 10);

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function seed(store: EventStore): Promise<number> {
  for (let a = 0; a < 4; a++) {
    const workspace = a % 2 === 0 ? 'acme' : 'globex';
    await store.append(ownerStreamId('agents', `agent-${a}`), [
      { type: RESOURCE_ASSIGNED_EVENT_TYPE, data: { collection: 'agents', id: `agent-${a}`, workspace_id: workspace } },
    ]);
  }
  for (let s = 0; s < SESSIONS; s++) {
    const id = `s-${s}`;
    await store.append(sessionMetaStreamId(id), [{ type: 'SessionOpened', data: { id, agent_id: `agent-${s % 4}` } }]);
    await store.append(
      sessionStreamId(id),
      Array.from({ length: PER_SESSION }, (_, i) => ({
        type: 'message',
        data: {
          session_id: id,
          source: 'customer',
          correlation_id: `c-${i}`,
          data: { message: `message ${i} of session ${id}`, participant: { display_name: 'Ann' } },
        },
      })),
    );
  }
  return SESSIONS * PER_SESSION;
}

const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-relay-'));
const nc = await connect({ servers: natsUrl });
const jsm = await jetstreamManager(nc);
const created: string[] = [];
try {
  const store = SqliteEventStore.open({ file: join(dir, 'tenet.sqlite') });
  const published = await seed(store);
  const end = (await store.readAll({ afterPosition: 0, limit: 1_000_000 })).at(-1)?.position ?? 0;

  /** One run: a fresh namespace (fresh streams, so no message is a duplicate), a fresh relay, the whole log. */
  const run = async (route: () => EventRoute): Promise<number> => {
    const namespace = `benchrelay${randomUUID().slice(0, 8)}`;
    const streams = [
      namespacedStream({ name: 'TENET_V1', subjects: [ALL_V1_SUBJECTS] }, namespace),
      namespacedStream({ name: 'TENET_V2', subjects: [ALL_V2_SUBJECTS] }, namespace),
    ];
    created.push(...streams.map((s) => s.name));
    const nats = await NatsMessageBus.connect({ servers: natsUrl, streams });
    const bus = withSubjectNamespace(nats, namespace);
    const relay = new EventLogRelay({ store, publisher: bus, route: route(), checkpointName: `bench-${namespace}`, pollIntervalMs: 0 });
    const started = process.hrtime.bigint();
    await relay.start();
    while (relay.publishedUpTo < end) await relay.whenIdle();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await relay.stop();
    await bus.close();
    for (const stream of streams) await jsm.streams.delete(stream.name).catch(() => undefined);
    return published / seconds;
  };
  const v1Only = (): EventRoute => (event) => toIntegrationEvent(event);
  const bothMajors = (): EventRoute => publishedEvents(new EventWorkspaces(store));
  /** Both majors without resolving (a fixed workspace): what publishing twice costs by itself. */
  const bothFixed = (): EventRoute => (event) => {
    const v1 = toIntegrationEvent(event);
    return v1 && [v1, toWorkspaceEvent(v1, 'acme')];
  };

  await run(v1Only); // warm-up
  await run(bothFixed);
  await run(bothMajors);
  const floor: number[] = [];
  const twice: number[] = [];
  const tenet: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(await run(v1Only));
    twice.push(await run(bothFixed));
    tenet.push(await run(bothMajors));
  }
  const row = {
    case: `relay, ${published} session events (${SESSIONS} sessions, 2 workspaces)`,
    tenet_events_per_s: Math.round(median(tenet)),
    twice_fixed_workspace_events_per_s: Math.round(median(twice)),
    floor_events_per_s: Math.round(median(floor)),
    ratio: Number((median(tenet) / median(floor)).toFixed(2)),
    ratio_to_twice: Number((median(tenet) / median(twice)).toFixed(2)),
    tenet_rounds: tenet.map(Math.round),
    twice_rounds: twice.map(Math.round),
    floor_rounds: floor.map(Math.round),
  };
  process.stdout.write(
    `| case | v1 + v2, resolved (events/s) | v1 + v2, fixed workspace (events/s) | v1 only, floor (events/s) | resolved / floor | resolved / fixed |\n| --- | ---: | ---: | ---: | ---: | ---: |\n| ${row.case} | ${row.tenet_events_per_s} | ${row.twice_fixed_workspace_events_per_s} | ${row.floor_events_per_s} | ${row.ratio} | ${row.ratio_to_twice} |\n`,
  );
  const out = new URL('../docs/benchmarks/', import.meta.url);
  mkdirSync(out, { recursive: true });
  writeFileSync(new URL('relay-workspaces.json', out), `${JSON.stringify({ node: process.version, rounds: ROUNDS, row }, null, 2)}\n`);
  await store.close();
} finally {
  for (const name of created) await jsm.streams.delete(name).catch(() => undefined);
  await nc.close();
  rmSync(dir, { recursive: true, force: true });
}
