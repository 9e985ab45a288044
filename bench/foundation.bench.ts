/**
 * Foundation benchmark: Tenet's adapters next to the raw floor measured in the same run.
 *
 *   npm run bench:foundation            (needs NATS with JetStream on NATS_URL, default 127.0.0.1:4222)
 *
 * - SQLite event log: SqliteEventStore.append (single events, and batches of 10) vs. a raw better-sqlite3
 *   loop doing the same work a correct append must do (version lookup + insert, one IMMEDIATE transaction).
 *   Then 50 concurrent callers (as 50 sessions' turns), each awaiting its own 1-event appends: the store with
 *   group commit (default) and without (`groupCommit: false`), each against the raw one-transaction-per-append
 *   loop of the same round.
 * - JetStream: NatsMessageBus.publish vs. a raw @nats-io/jetstream publish loop, both awaiting each PubAck
 *   with a msgID, sequentially and with a window of 64 in flight.
 * Floor and Tenet alternate round by round (median of BENCH_ROUNDS, default 5, after a warm-up).
 * Prints a Markdown table and writes docs/benchmarks/foundation.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@tenet/event-store';
import { NatsMessageBus } from '@tenet/messaging';

interface Row {
  case: string;
  tenet_ops_per_s: number;
  floor_ops_per_s: number;
  ratio: number;
  events: number;
}

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * Runs the floor and Tenet alternately, round after round, so that drift on this shared machine (WAL
 * checkpoints, page cache, other load) hits both alike; reports the median rate of each.
 */
async function compare(
  label: string,
  events: number,
  floor: () => Promise<void> | void,
  tenet: () => Promise<void> | void,
): Promise<[number, number]> {
  const timed = async (run: () => Promise<void> | void): Promise<number> => {
    const started = process.hrtime.bigint();
    await run();
    return events / (Number(process.hrtime.bigint() - started) / 1e9);
  };
  await timed(floor); // warm-up, not counted
  await timed(tenet);
  const floorRates: number[] = [];
  const tenetRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floorRates.push(await timed(floor));
    tenetRates.push(await timed(tenet));
  }
  const [f, t] = [median(floorRates), median(tenetRates)];
  process.stderr.write(`  ${label}: floor ${Math.round(f)}/s, Tenet ${Math.round(t)}/s\n`);
  return [t, f];
}

const row = (name: string, events: number, tenet: number, floor: number): Row => ({
  case: name,
  tenet_ops_per_s: Math.round(tenet),
  floor_ops_per_s: Math.round(floor),
  ratio: Number((tenet / floor).toFixed(2)),
  events,
});

async function sqlite(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-'));
  const N = Number(process.env['BENCH_SQLITE_EVENTS'] ?? 5_000);
  const BATCH = 10;
  try {
    const store = SqliteEventStore.open({ file: join(dir, 'tenet.sqlite') });
    const payload = { message: 'I need help with my order #12345', participant: { display_name: 'Ann' } };

    // Raw floor: the same schema and pragmas, the same per-append work (read the stream's last offset,
    // insert at the next one) inside one IMMEDIATE transaction, with prepared statements.
    const raw = new Database(join(dir, 'raw.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
      stream_offset INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL,
      UNIQUE (stream_id, stream_offset))`);
    const last = raw.prepare<[string], { stream_offset: number }>(
      'SELECT stream_offset FROM events WHERE stream_id = ? ORDER BY stream_offset DESC LIMIT 1',
    );
    const insert = raw.prepare(
      'INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const rawAppend = raw.transaction((streamId: string, count: number) => {
      const next = (last.get(streamId)?.stream_offset ?? -1) + 1;
      const at = new Date().toISOString();
      for (let i = 0; i < count; i++) insert.run(randomUUID(), streamId, next + i, 'message', JSON.stringify(payload), '{}', at);
    });

    const single = (append: (stream: string) => Promise<unknown> | unknown) => async () => {
      const stream = `session-${randomUUID()}`;
      for (let i = 0; i < N; i++) await append(stream);
    };
    const batched = (append: (stream: string) => Promise<unknown> | unknown) => async () => {
      const stream = `session-${randomUUID()}`;
      for (let i = 0; i < N / BATCH; i++) await append(stream);
    };
    const batch = Array.from({ length: BATCH }, () => ({ type: 'message', data: payload }));

    process.stderr.write('SQLite event log\n');
    const [tenetSingle, rawSingle] = await compare(
      '1 event per append',
      N,
      single((s) => rawAppend.immediate(s, 1)),
      single((s) => store.append(s, [{ type: 'message', data: payload }])),
    );
    const [tenetBatch, rawBatch] = await compare(
      `${BATCH} events per append`,
      N,
      batched((s) => rawAppend.immediate(s, BATCH)),
      batched((s) => store.append(s, batch)),
    );
    // 50 callers at once, each appending to its own stream and awaiting each append before the next.
    const CALLERS = 50;
    const concurrent = (append: (stream: string) => Promise<unknown> | unknown) => async () => {
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          const stream = `session-${randomUUID()}`;
          for (let i = 0; i < N / CALLERS; i++) await append(stream);
        }),
      );
    };
    const ungrouped = SqliteEventStore.open({ file: join(dir, 'tenet-ungrouped.sqlite'), groupCommit: false });
    const [tenetGrouped, rawGroupedFloor] = await compare(
      `${CALLERS} concurrent callers, group commit`,
      N,
      concurrent((s) => rawAppend.immediate(s, 1)),
      concurrent((s) => store.append(s, [{ type: 'message', data: payload }])),
    );
    const [tenetUngrouped, rawUngroupedFloor] = await compare(
      `${CALLERS} concurrent callers, one transaction per append`,
      N,
      concurrent((s) => rawAppend.immediate(s, 1)),
      concurrent((s) => ungrouped.append(s, [{ type: 'message', data: payload }])),
    );
    raw.close();
    await store.close();
    await ungrouped.close();
    return [
      row('SQLite append, 1 event per call', N, tenetSingle, rawSingle),
      row(`SQLite append, ${BATCH} events per call`, N, tenetBatch, rawBatch),
      row(`SQLite append, ${CALLERS} concurrent callers, group commit (default)`, N, tenetGrouped, rawGroupedFloor),
      row(`SQLite append, ${CALLERS} concurrent callers, group commit off`, N, tenetUngrouped, rawUngroupedFloor),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function jetStreamPublish(): Promise<Row[]> {
  const N = Number(process.env['BENCH_NATS_EVENTS'] ?? 5_000);
  const WINDOW = 64;
  const stream = `BENCH_${randomUUID().replaceAll('-', '')}`;
  const subjectRoot = `bench.${randomUUID()}`;
  const nc = await connect({ servers: natsUrl, name: 'tenet-bench-raw' });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${subjectRoot}.>`], duplicate_window: 120_000_000_000 });
  const js = jetstream(nc);
  const bus = await NatsMessageBus.connect({ servers: natsUrl, name: 'tenet-bench-bus' });
  const payload = { id: 'x', type: 'session.message_created', data: { message: 'I need help with my order #12345' } };
  try {
    const sequential = (publish: (subject: string, id: string) => Promise<unknown>) => async () => {
      const subject = `${subjectRoot}.${randomUUID()}`;
      for (let i = 0; i < N; i++) await publish(subject, randomUUID());
    };
    const windowed = (publish: (subject: string, id: string) => Promise<unknown>) => async () => {
      const subject = `${subjectRoot}.${randomUUID()}`;
      for (let i = 0; i < N; i += WINDOW) {
        await Promise.all(Array.from({ length: Math.min(WINDOW, N - i) }, () => publish(subject, randomUUID())));
      }
    };
    const rawPublish = (subject: string, id: string) => js.publish(subject, JSON.stringify(payload), { msgID: id });
    const busPublish = (subject: string, id: string) => bus.publish(subject, payload, { msgId: id });

    process.stderr.write('JetStream publish\n');
    const [busSeq, rawSeq] = await compare('awaited one by one', N, sequential(rawPublish), sequential(busPublish));
    const [busWin, rawWin] = await compare(`${WINDOW} in flight`, N, windowed(rawPublish), windowed(busPublish));
    return [
      row('JetStream publish, awaited one by one', N, busSeq, rawSeq),
      row(`JetStream publish, ${WINDOW} in flight`, N, busWin, rawWin),
    ];
  } finally {
    await jsm.streams.delete(stream);
    await bus.close();
    await nc.drain();
  }
}

const rows = [...(await sqlite()), ...(await jetStreamPublish())];
const table = [
  '| case | Tenet (events/s) | raw floor (events/s) | Tenet / floor |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.case} | ${r.tenet_ops_per_s} | ${r.floor_ops_per_s} | ${r.ratio} |`),
].join('\n');
process.stdout.write(`${table}\n`);
const out = new URL('../docs/benchmarks/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('foundation.json', out), `${JSON.stringify({ node: process.version, rounds: ROUNDS, rows }, null, 2)}\n`);
