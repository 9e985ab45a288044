import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider } from '@tenet/llm';
import { eventually, startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';

export interface StatusEvent {
  offset: number;
  kind: string;
  correlation_id: string;
  data: { status?: string; data?: Record<string, unknown> };
}

/** HTTP against a host whose URL may change (a restarted host): JSON in and out, with a client deadline. */
export function faultHttp(url: () => string, timeoutMs = 30_000) {
  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  /** The final status (`ready` or `error`, with its data) of the first turn that ends after `offset`. */
  const finalStatus = (sessionId: string, offset: number, waitMs = 90_000): Promise<StatusEvent['data']> =>
    eventually(
      async () => {
        const { body } = await call<StatusEvent[]>(`/sessions/${sessionId}/events?min_offset=${offset + 1}&kinds=status`);
        const final = body.find((e) => e.data.status === 'ready' || e.data.status === 'error');
        expect(final).toBeDefined();
        return final!.data;
      },
      { timeoutMs: waitMs, intervalMs: 250 },
    );
  return { call, finalStatus };
}

/** An all-in-one host in distributed mode on its own nats-server and redis-server (free ports), offline provider. */
export interface OwnStack {
  nats: OwnServer;
  redis: OwnServer;
  host: { app: INestApplication; url: string };
  dispose(): Promise<void>;
}

export async function startOwnStack(name: string): Promise<OwnStack> {
  const [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
  const dir = mkdtempSync(join(tmpdir(), `tenet-${name}-`));
  const env = {
    TENET_MODE: 'distributed',
    TENET_DATA_DIR: dir,
    NATS_URL: nats.url,
    REDIS_URL: redis.url,
    TENET_NAMESPACE: `${name}-${randomUUID()}`,
    TENET_DEMO: 'off',
    TENET_AUTH: 'off',
  };
  const host = await startAllInOne(env, { provider: new OfflineProvider() });
  return {
    nats,
    redis,
    host,
    dispose: async () => {
      await host.app.close().catch(() => undefined);
      await Promise.all([nats.dispose(), redis.dispose()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
