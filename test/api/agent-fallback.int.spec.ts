import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { ProviderUnavailableError, type LlmProvider, type LlmRequest, type LlmResponse } from '@tenet/llm';

/** The configured default provider, down for the whole test: every call fails as an outage would. */
class DownProvider implements LlmProvider {
  readonly name = 'down';
  readonly model = 'down-1';
  calls = 0;

  generate<I, O>(_request: LlmRequest<I>): Promise<LlmResponse<O>> {
    this.calls++;
    return Promise.reject(new ProviderUnavailableError('down', 'service unavailable', false, 503));
  }
}

interface Ready {
  status: string;
  data: {
    usage?: { purpose: string; provider: string; fallback_from?: string }[];
    matched_guidelines?: { guideline_id: string }[];
    exception?: string;
    code?: string;
  };
}

describe("an agent's fallback provider without a provider of its own", () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const down = new DownProvider();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-fallback-'));
    ({ app, url } = await startAllInOne({ TENET_DATA_DIR: dir }, { provider: down }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`POST ${path} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  /** Posts a customer message and waits for the turn's last status (ready or error). */
  const turn = async (agentId: string, message: string): Promise<Ready> => {
    const session = await post<{ id: string }>('/sessions', { agent_id: agentId });
    const posted = await post<{ offset: number }>(`/sessions/${session.id}/events`, { kind: 'message', source: 'customer', message });
    for (let from = posted.offset + 1; ;) {
      const events = (await (
        await fetch(`${url}/sessions/${session.id}/events?min_offset=${from}&kinds=status&wait_for_data=30`)
      ).json()) as { offset: number; data: Ready }[];
      const last = events.find((e) => e.data.status === 'ready' || e.data.status === 'error');
      if (last) return last.data;
      from = (events.at(-1)?.offset ?? from - 1) + 1;
    }
  };

  it('given the configured provider is down, when the agent sets only `fallback`, then its turns are answered by the fallback and the usage says so', async () => {
    const agent = await post<{ id: string; fallback: unknown }>('/agents', { name: 'Resilient', fallback: { provider: 'offline' } });
    expect(agent.fallback).toEqual({ provider: 'offline' });
    const refund = await post<{ id: string }>('/guidelines', {
      condition: 'The customer asks for a refund',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });

    const ready = await turn(agent.id, 'I want a refund please');
    expect(ready.status).toBe('ready');
    expect(ready.data.matched_guidelines?.map((m) => m.guideline_id)).toEqual([refund.id]);
    // The model calls (recall's query embedding, metered too, has no provider fallback).
    expect(ready.data.usage?.filter((u) => u.purpose !== 'knowledge.search').map((u) => [u.purpose, u.provider, u.fallback_from])).toEqual([
      ['match_guidelines', 'offline', 'down/down-1'],
      ['compose_reply', 'offline', 'down/down-1'],
    ]);
    expect(down.calls).toBeGreaterThan(0);
  });

  it('given the configured provider is down, when the agent has no fallback, then the turn ends in an error status with the outage code (not the provider text)', async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Fragile' });
    await post('/guidelines', {
      condition: 'The customer asks for a refund',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });
    const ended = await turn(agent.id, 'I want a refund please');
    expect(ended.status).toBe('error');
    expect(ended.data.code).toBe('LLM.UNAVAILABLE');
    expect(ended.data.exception).not.toMatch(/service unavailable/);
  });
});
