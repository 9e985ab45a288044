import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider, type LlmProvider } from '@tenet/llm';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { deleteRedisKeys, deleteStreams, describeWithService, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { message?: string; status?: string };
}

/** The offline provider, slowed down so that turns overlap in time unless something serializes them. */
function slowProvider(delayMs: number): LlmProvider {
  const inner = new OfflineProvider();
  return {
    name: inner.name,
    model: inner.model,
    async generate(request) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return inner.generate(request);
    },
  };
}

const TERMINAL = ['ready', 'cancelled', 'error'];
const nats = await probeNats();
const redis = await probeRedis();

describeWithService(nats.available ? redis : nats, 'turns of one session across two gateway processes (real NATS and Redis)', () => {
  let dir: string;
  let hosts: { app: INestApplication; url: string }[];
  const namespace = `test-${randomUUID()}`;
  const redisPrefix = `test-${randomUUID()}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-turns-'));
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: redisPrefix,
      TENET_NAMESPACE: namespace,
      TENET_AUTH: 'off',
    };
    hosts = [await startAllInOne(env, { provider: slowProvider(150) }), await startAllInOne(env, { provider: slowProvider(150) })];
  });

  afterAll(async () => {
    for (const host of hosts) await host.app.close();
    await deleteStreams(
      natsUrl(),
      tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
    );
    await deleteRedisKeys(redisUrl(), redisPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const json = async <T>(url: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status >= 300) throw new Error(`${method} ${url} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  it('never runs two turns at once, cancels superseded turns wherever they run, and answers only the latest message', async () => {
    const a = hosts[0]!;
    const b = hosts[1]!;
    const agent = await json<{ id: string }>(`${a.url}/agents`, 'POST', { name: 'Support' });
    await json(`${a.url}/guidelines`, 'POST', {
      condition: 'The customer asks about refunds',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });
    const session = await json<{ id: string }>(`${b.url}/sessions`, 'POST', { agent_id: agent.id });
    const say = (host: { url: string }, message: string) =>
      json<Event>(`${host.url}/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message });

    // Three customer messages in a burst, through both gateways.
    const posted = await Promise.all([say(a, 'I want a refund'), say(b, 'for order 12345'), say(a, 'refund it to my card please')]);
    const latest = posted.reduce((x, y) => (y.offset > x.offset ? y : x));

    // Wait until every turn has ended.
    let events: Event[] = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      events = await json<Event[]>(`${a.url}/sessions/${session.id}/events`);
      const ended = posted.filter((p) =>
        events.some((e) => e.correlation_id === p.correlation_id && TERMINAL.includes(e.data.status ?? '')),
      );
      if (ended.length === posted.length) break;
      await json(`${b.url}/sessions/${session.id}/events?min_offset=${events.at(-1)!.offset + 1}&wait_for_data=10`).catch(() => undefined);
    }

    const statusesOf = (correlationId: string) => events.filter((e) => e.kind === 'status' && e.correlation_id === correlationId);
    // Each turn ends exactly once; the latest message's turn replies, and it is the only one that does.
    for (const p of posted) expect(statusesOf(p.correlation_id).filter((e) => TERMINAL.includes(e.data.status!))).toHaveLength(1);
    expect(statusesOf(latest.correlation_id).at(-1)!.data.status).toBe('ready');
    const replies = events.filter((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(replies.map((r) => r.correlation_id)).toEqual([latest.correlation_id]);
    for (const p of posted.filter((p) => p !== latest)) expect(statusesOf(p.correlation_id).at(-1)!.data.status).toBe('cancelled');

    // Serialized: from `processing` (or, for a turn cancelled before it, its end) to its end, no other turn's step runs.
    const windows = posted
      .map((p) => {
        const statuses = statusesOf(p.correlation_id).filter((e) => e.data.status !== 'acknowledged');
        return { from: statuses[0]!.offset, to: statuses.at(-1)!.offset };
      })
      .sort((x, y) => x.from - y.from);
    for (let i = 1; i < windows.length; i++) expect(windows[i]!.from).toBeGreaterThan(windows[i - 1]!.to);
  });
});
