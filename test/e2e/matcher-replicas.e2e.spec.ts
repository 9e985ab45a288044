import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startGatewayOnly } from '@tenet/hosts';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import {
  deleteRedisKeys,
  deleteStreams,
  describeWithService,
  eventually,
  inParallel,
  natsUrl,
  probeNats,
  probeRedis,
  redisUrl,
} from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;

interface Event {
  offset: number;
  kind: string;
  source: string;
  data: { message?: string; status?: string; data?: { served_by?: { match: string; compose: string } } };
}

const nats = await probeNats();
const redis = await probeRedis();

/** Two guideline-matcher processes in one queue group share the turns of a gateway: each turn answered once. */
describeWithService(nats.available ? redis : nats, 'guideline-matcher replicas (two OS processes over real NATS)', () => {
  let dir: string;
  let gateway: { app: INestApplication; url: string };
  const matchers: { child: ChildProcess; output: () => string }[] = [];
  const namespace = `replicas-${randomUUID()}`;
  const redisPrefix = `test-${randomUUID()}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-replicas-'));
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: redisPrefix,
      TENET_NAMESPACE: namespace,
      TENET_AUTH: 'off',
    };
    for (let i = 0; i < 2; i++) {
      let output = '';
      const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', 'apps/guideline-matcher/src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env, PORT: '0', TENET_LLM_PROVIDER: 'offline' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      matchers.push({ child, output: () => output });
    }
    for (const matcher of matchers) {
      await eventually(
        () => {
          if (matcher.child.exitCode !== null) throw new Error(`a matcher exited early:\n${matcher.output()}`);
          expect(matcher.output()).toContain('serving the queue group');
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
    }
    gateway = await startGatewayOnly(env);
    // Two matcher processes compile and connect one after the other's start; on two loaded cores that takes minutes.
  }, 300_000);

  afterAll(async () => {
    await gateway?.app.close();
    // Even when a test timed out: no matcher outlives the suite (SIGKILL if one does not stop within 10 s).
    await Promise.all(
      matchers.map(({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        return exited.finally(() => clearTimeout(killer));
      }),
    );
    await deleteStreams(
      natsUrl(),
      tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
    );
    await deleteRedisKeys(redisUrl(), redisPrefix).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const json = async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  it('shares 200 concurrent turns between the two replicas and answers every turn exactly once', async () => {
    const agent = await json<{ id: string }>('/agents', 'POST', { name: 'Support' });
    await json('/guidelines', 'POST', {
      condition: 'The customer asks about refunds or money back',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent.id}`],
    });
    const sessions = await inParallel(200, 50, () => json<{ id: string }>('/sessions', 'POST', { agent_id: agent.id }));
    await inParallel(200, 50, (i) =>
      json(`/sessions/${sessions[i]!.id}/events`, 'POST', {
        kind: 'message',
        source: 'customer',
        message: `I want my money back for order ${i}`,
      }),
    );

    const done = await inParallel(200, 50, async (i) => {
      const s = sessions[i]!;
      let events: Event[] = [];
      for (let attempt = 0; attempt < 60 && !events.some((e) => ['ready', 'error'].includes(e.data.status ?? '')); attempt++) {
        await json(`/sessions/${s.id}/events?min_offset=${(events.at(-1)?.offset ?? 0) + 1}&kinds=status&wait_for_data=30`).catch(
          () => undefined,
        );
        events = await json<Event[]>(`/sessions/${s.id}/events`);
      }
      return events;
    });
    const servedBy = new Map<string, number>();
    for (const events of done) {
      const statuses = events.filter((e) => e.kind === 'status').map((e) => e.data.status);
      expect(statuses).toEqual(['acknowledged', 'processing', 'typing', 'ready']);
      expect(events.filter((e) => e.kind === 'message' && e.source === 'ai_agent')).toHaveLength(1);
      const replica = events.find((e) => e.data.status === 'ready')!.data.data!.served_by!.match;
      servedBy.set(replica, (servedBy.get(replica) ?? 0) + 1);
    }
    const pids = matchers.map((m) => String(m.child.pid));
    expect([...servedBy.keys()].map((r) => r.split(':').at(-1)).sort()).toEqual(pids.sort());
    expect([...servedBy.values()].reduce((a, b) => a + b, 0)).toBe(200);
    for (const count of servedBy.values()) expect(count).toBeGreaterThan(20);
  }, 300_000);
});
