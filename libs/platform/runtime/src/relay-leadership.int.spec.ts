import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { sessionStreamId } from '@tenet/contracts';
import { deleteStreams, describeWithService, eventually, natsUrl, probeNats } from '@tenet/testing';
import { loadPlatformConfig, type PlatformConfig } from './platform-config.js';
import { openPlatform, tenetStreamsFor, type PlatformAdapters } from './platform-adapters.js';

const LEASE_MS = 1_500;
/**
 * The lease of the first case: a loaded CI machine once stalled the leader's renewal past 1.5 s during its appends, and
 * the standby rightly took over. Long enough that it cannot; a clean stop must still hand over long before it ends —
 * within a quarter of it, which tells a hand-over from an expiry however loaded the machine (a hand-over once took
 * 4 s on two busy cores: measured against a 1.5 s bound that failed, against this one it is still far from 60 s).
 */
const STEADY_LEASE_MS = 60_000;
const fixture = fileURLToPath(new URL('./relay-process.fixture.ts', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const customEvent = (sessionId: string, n: number) => ({
  type: 'custom',
  data: { session_id: sessionId, source: 'customer_ui', correlation_id: `c-${n}`, data: { n } },
});

interface Received {
  id: string;
  subject: string;
  sessionId: string;
  offset: number;
}

describeWithService(await probeNats(), 'relay leadership: several processes on one SQLite event log (real NATS)', () => {
  let dir: string;
  let nc: NatsConnection;
  let received: Received[];
  let sessions: Set<string>;
  const platforms: PlatformAdapters[] = [];
  const children: ChildProcess[] = [];
  const streams: string[] = [];

  const env = (namespace?: string, leaseMs = LEASE_MS): Record<string, string> => ({
    TENET_MODE: 'distributed',
    NATS_URL: natsUrl(),
    TENET_DATA_DIR: dir,
    TENET_RELAY_LEASE_MS: String(leaseMs),
    ...(namespace ? { TENET_NAMESPACE: namespace } : {}),
  });
  const platform = async (config: PlatformConfig): Promise<PlatformAdapters> => {
    const opened = await openPlatform(config);
    platforms.push(opened);
    await opened.relay.start();
    return opened;
  };
  const newSession = (): string => {
    const id = `s${randomUUID().replaceAll('-', '')}`;
    sessions.add(id);
    return id;
  };
  /** Appends one event per call through `via`; returns the event ids. */
  const append = async (via: PlatformAdapters, sessionId: string, from: number, count: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let n = from; n < from + count; n++)
      ids.push(...(await via.eventStore.append(sessionStreamId(sessionId), [customEvent(sessionId, n)])).events.map((e) => e.id));
    return ids;
  };
  /** Every appended id arrived exactly once on the plain subscriber, each session's in offset order. */
  const expectEachOnce = async (ids: string[]): Promise<void> => {
    await eventually(() => expect(received.length).toBeGreaterThanOrEqual(ids.length), { timeoutMs: 20_000 });
    await sleep(500); // a late duplicate would show up here
    expect(received.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const sessionId of sessions) {
      const offsets = received.filter((r) => r.sessionId === sessionId).map((r) => r.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    }
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-relay-leadership-'));
    nc = await connect({ servers: natsUrl() });
    received = [];
    sessions = new Set();
    // A plain core-NATS subscriber, not a JetStream consumer: it sees every publish, duplicates included —
    // of the unnamespaced deployment and of any namespace (`<ns>.tenet.v1.…`).
    const record = (msg: Msg): void => {
      const payload = msg.json<{ id: string; offset: number; data: { session_id: string } }>();
      if (sessions.has(payload.data.session_id))
        received.push({ id: payload.id, subject: msg.subject, sessionId: payload.data.session_id, offset: payload.offset });
    };
    for (const subject of ['tenet.v1.session.>', '*.tenet.v1.session.>']) nc.subscribe(subject, { callback: (_error, msg) => record(msg) });
    await nc.flush();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const opened of platforms.splice(0)) await opened.close().catch(() => undefined);
    await nc.drain();
    await deleteStreams(natsUrl(), streams.splice(0));
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes each event once while two processes append to one log: the standby kicks the leader; stopping the leader hands over at once', async () => {
    const namespace = `relay-${randomUUID()}`;
    streams.push(...tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name));
    const kicks: string[] = [];
    nc.subscribe(`${namespace}.tenet.relay.*.kick`, { callback: (_error, msg) => void kicks.push(msg.subject) });
    await nc.flush();

    const first = await platform({ ...loadPlatformConfig(env(namespace, STEADY_LEASE_MS)), serviceName: 'relay-a' });
    const second = await platform({ ...loadPlatformConfig(env(namespace, STEADY_LEASE_MS)), serviceName: 'relay-b' });
    expect([first.relay.status().role, second.relay.status().role]).toEqual(['leader', 'standby']);
    expect(first.describe()['relay_leadership']).toBe(second.describe()['relay_leadership']);
    expect(first.describe()['relay_leadership']).toMatch(/^lease relay\.[0-9a-f]{32} in NATS KV TENET_LEASES \(60000 ms\)$/);

    // N = 60 events appended concurrently through both processes, on three sessions.
    const ids = (
      await Promise.all(
        [newSession(), newSession(), newSession()].flatMap((sessionId, s) => [
          append(first, sessionId, s * 100, 10),
          append(second, sessionId, s * 100 + 50, 10),
        ]),
      )
    ).flat();
    expect(ids).toHaveLength(60);
    await expectEachOnce(ids);
    // The standby published nothing itself; it kicked the leader on the namespaced subject.
    expect(kicks.length).toBeGreaterThan(0);
    expect(kicks.every((subject) => /^relay-[0-9a-f-]+\.tenet\.relay\.[0-9a-f]{32}\.kick$/.test(subject))).toBe(true);
    expect(second.relay.status().role).toBe('standby');

    // A clean stop flushes the checkpoint, then deletes the lease: the standby, watching the key, takes over at once.
    const stoppedAt = Date.now();
    await first.close();
    await eventually(() => expect(second.relay.status().role).toBe('leader'), { timeoutMs: 10_000, intervalMs: 10 });
    expect(Date.now() - stoppedAt).toBeLessThan(STEADY_LEASE_MS / 4); // a quarter of this case's lease: not an expiry

    const later = await append(second, newSession(), 0, 10);
    await expectEachOnce([...ids, ...later]);
    expect(second.relay.publishedUpTo).toBe((await second.eventStore.readAll()).at(-1)!.position);
  });

  it('replaces a crashed leader (killed, its lease left behind) after the lease, without losing or repeating an event', async () => {
    // Its own namespace, so its streams are deleted afterwards like the first case's (it used the unnamespaced ones).
    const namespace = `relay-${randomUUID()}`;
    streams.push(...tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name));
    let output = '';
    const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', fixture], {
      cwd: process.cwd(),
      env: { ...process.env, ...env(namespace) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await eventually(() => expect(output).toContain('relay-fixture ready leader'), { timeoutMs: 90_000, intervalMs: 100 }).catch(
      (error: unknown) => {
        throw new Error(`the leader process did not start: ${String(error)}\n--- output ---\n${output}`);
      },
    );

    const survivor = await platform({ ...loadPlatformConfig(env(namespace)), serviceName: 'relay-survivor' });
    expect(survivor.relay.status().role).toBe('standby');
    const sessionId = newSession();
    const before = await append(survivor, sessionId, 0, 10);
    // Published by the other process, kicked by this one's appends.
    await expectEachOnce(before);
    const lastPosition = (await survivor.eventStore.readAll()).at(-1)!.position;
    await eventually(async () => expect(await survivor.eventStore.loadCheckpoint('tenet.v1.relay')).toBe(lastPosition));

    child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    const after = await append(survivor, sessionId, 10, 10);
    await sleep(LEASE_MS / 3);
    // Nobody leads until the dead leader's claim has gone unrenewed for a lease: the new events wait in the log.
    expect(survivor.relay.status().role).toBe('standby');
    expect(received).toHaveLength(10);

    await eventually(() => expect(survivor.relay.status().role).toBe('leader'), { timeoutMs: 4 * LEASE_MS, intervalMs: 10 });
    const tookOverAfter = Date.now() - killedAt;
    expect(tookOverAfter).toBeGreaterThanOrEqual(LEASE_MS / 2);
    await expectEachOnce([...before, ...after]);
  });
});
