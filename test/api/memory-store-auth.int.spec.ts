import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startGatewayOnly, startMemoryStoreOnly } from '@tenet/hosts';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { deleteRedisKeys, deleteStreams, describeWithService, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-memory-store-test-0123456789';
const nats = await probeNats();
const redis = await probeRedis();

/**
 * The memory store alone serves `/knowledge/*` and `/customers/{id}/memory*`: with the gateway's guard, keys and
 * workspaces read from the event log it shares with the gateway; distributed, it is not open unless told so.
 */
describeWithService(
  nats.available && !redis.available ? redis : nats,
  'memory store alone: the same edge as the gateway (distributed, shared log)',
  () => {
    const namespace = `mem-auth-${randomUUID().slice(0, 8)}`;
    const apps: INestApplication[] = [];
    let dir: string;

    const env = (extra: Record<string, string> = {}): Record<string, string> => ({
      TENET_MODE: 'distributed',
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_NAMESPACE: namespace,
      TENET_REDIS_PREFIX: `tenet-${namespace}`,
      TENET_DATA_DIR: dir,
      TENET_LLM_PROVIDER: 'offline',
      TENET_DEMO: 'off',
      ...extra,
    });
    const call = async (
      base: string,
      method: string,
      path: string,
      key?: string,
      body?: unknown,
    ): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'tenet-memory-auth-'));
    });

    afterAll(async () => {
      for (const app of apps) await app.close();
      await deleteStreams(
        natsUrl(),
        tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
      );
      await deleteRedisKeys(redisUrl(), `tenet-${namespace}`);
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses callers without a key, knows the keys and workspaces the gateway created, and confines them', async () => {
      const gateway = await startGatewayOnly(env({ TENET_ADMIN_KEY: ADMIN_KEY }));
      apps.push(gateway.app);
      const memory = await startMemoryStoreOnly(env({ TENET_ADMIN_KEY: ADMIN_KEY }));
      apps.push(memory.app);

      expect((await call(memory.url, 'GET', '/knowledge/sources')).status).toBe(401);
      expect((await call(memory.url, 'GET', '/customers/guest/memory')).status).toBe(401);
      expect((await call(memory.url, 'GET', '/healthz')).status).toBe(200);

      // Keys, agents and customers made at the gateway are known to the memory store through the shared log.
      const acme = (
        (await call(gateway.url, 'POST', '/keys', ADMIN_KEY, { name: 'acme', role: 'admin', workspace_id: 'acme' })).body as { key: string }
      ).key;
      const globex = (
        (await call(gateway.url, 'POST', '/keys', ADMIN_KEY, { name: 'globex', role: 'admin', workspace_id: 'globex' })).body as {
          key: string;
        }
      ).key;
      const agent = ((await call(gateway.url, 'POST', '/agents', acme, { name: 'Acme' })).body as { id: string }).id;
      const customer = ((await call(gateway.url, 'POST', '/customers', acme, { name: 'Ann' })).body as { id: string }).id;
      const created = await call(memory.url, 'POST', '/knowledge/sources', acme, {
        id: 'acme-faq',
        title: 'FAQ',
        format: 'text',
        content: 'Acme ships worldwide.',
        agent_ids: [agent],
      });
      expect(created.status).toBe(201);
      expect((await call(memory.url, 'GET', '/knowledge/sources/acme-faq', acme)).status).toBe(200);
      expect((await call(memory.url, 'GET', '/knowledge/sources/acme-faq', globex)).status).toBe(404);
      expect((await call(memory.url, 'GET', `/customers/${customer}/memory`, acme)).status).toBe(200);
      expect((await call(memory.url, 'GET', `/customers/${customer}/memory`, globex)).status).toBe(404);
      expect((await call(memory.url, 'GET', '/knowledge/sources', 'tnt_not_a_real_key_at_all')).status).toBe(401);
    }, 120_000);

    it('runs open only when told so in so many words (TENET_AUTH=off)', async () => {
      const open = await startMemoryStoreOnly(env({ TENET_AUTH: 'off', TENET_SERVICE_NAME: 'memory-store-open' }));
      apps.push(open.app);
      expect((await call(open.url, 'GET', '/knowledge/sources')).status).toBe(200);
    }, 120_000);
  },
);
