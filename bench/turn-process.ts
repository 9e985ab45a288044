/**
 * Child processes of the distributed turn benchmark (started by bench/turn.bench.ts, one role each):
 *
 *   matcher          the guideline matcher as apps/guideline-matcher runs it (MatcherHostModule over NATS, queue
 *                    group `guideline-matcher`), with the zero-latency provider instead of the configured one
 *   floor-responder  a bare `nc.subscribe` answering BENCH_FLOOR_SUBJECT.{match,compose} with a fixed reply
 *   floor-gateway    a bare node:http server doing the floor turn: SQLite appends in BENCH_FLOOR_DIR and
 *                    raw `nc.request` hops to the floor responder
 *   all-in-one       the all-in-one host as `npm start` runs it (TENET_MODE=embedded: in-process bus, SQLite log in
 *                    TENET_DATA_DIR, in-process timers) with the zero-latency provider, on its own event loop
 *
 * Each prints `ready [url]` on stdout once it serves, and exits on SIGTERM.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { connect } from '@nats-io/transport-node';
import { eventLoopSlices, SqliteEventStore } from '@tenet/event-store';
import { MatcherHostModule, startAllInOne, startMessageHandlers } from '@tenet/hosts';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { HOP_REPLY, HOP_REQUEST, serveFloor, ZeroLatencyProvider } from './turn-support.js';

const role = process.argv[2];
const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const subject = process.env['BENCH_FLOOR_SUBJECT'] ?? 'bench.floor';
const closers: (() => Promise<unknown>)[] = [];

process.once('SIGTERM', () => {
  void Promise.allSettled(closers.map((close) => close())).then(() => process.exit(0));
});

if (role === 'matcher') {
  const config = loadPlatformConfig({ TENET_MODE: 'distributed', ...process.env }, 'guideline-matcher');
  const app = await NestFactory.create(MatcherHostModule.forRoot(config, { provider: new ZeroLatencyProvider() }), {
    logger: ['error', 'warn'],
  });
  await startMessageHandlers(app, config.serviceName);
  await app.init();
  closers.push(() => app.close());
  process.stdout.write('ready\n');
} else if (role === 'floor-responder') {
  const nc = await connect({ servers: natsUrl, name: 'tenet-bench-floor-responder' });
  const reply = new TextEncoder().encode(JSON.stringify(HOP_REPLY));
  nc.subscribe(`${subject}.*`, { callback: (error, msg) => void (error ? undefined : msg.respond(reply)) });
  await nc.flush();
  closers.push(() => nc.drain());
  process.stdout.write('ready\n');
} else if (role === 'floor-gateway') {
  const store = SqliteEventStore.open({ dataDir: process.env['BENCH_FLOOR_DIR'] ?? '.tenet-bench-floor' });
  const nc = await connect({ servers: natsUrl, name: 'tenet-bench-floor-gateway' });
  const decoder = new TextDecoder();
  const { server, url } = await serveFloor(store, async (kind) => {
    const msg = await nc.request(`${subject}.${kind}`, JSON.stringify(HOP_REQUEST), { timeout: 10_000 });
    return JSON.parse(decoder.decode(msg.data)) as unknown;
  });
  closers.push(
    () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
    () => nc.drain(),
    () => store.close(),
  );
  process.stdout.write(`ready ${url}\n`);
} else if (role === 'all-in-one') {
  // BENCH_SLICE_MS: the event loop slice of the SQLite store (EventLoopSlices); "off" = every call at once, as before.
  const slice = process.env['BENCH_SLICE_MS'];
  if (slice !== undefined) eventLoopSlices.budgetMs = slice === 'off' ? Infinity : Number(slice);
  const env = Object.fromEntries(
    Object.entries({ ...process.env, TENET_MODE: 'embedded' }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const host = await startAllInOne(env, { provider: new ZeroLatencyProvider() });
  closers.push(() => host.app.close());
  process.stdout.write(`ready ${host.url}\n`);
} else {
  process.stderr.write(`unknown role "${role ?? ''}" (matcher | floor-responder | floor-gateway | all-in-one)\n`);
  process.exit(2);
}
