import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne as startGateway } from '@tenet/hosts';

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { message?: string; status?: string; data?: { matched_guidelines?: { guideline_id: string; score: number }[]; usage?: unknown[] } };
}

describe('a conversation turn (embedded adapters, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${url}${path}`)).json()) as T;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-turn-'));
    ({ app, url } = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('acknowledges, processes, replies from the matched guideline and reports it on ready; unrelated guidelines do not match', async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Support', description: 'Helps customers with orders' });
    const other = await post<{ id: string }>('/agents', { name: 'Other' });
    const refund = await post<{ id: string }>('/guidelines', {
      condition: "The customer asks about refunds, returns, or mentions 'money back'",
      action: 'Explain the 30-day refund policy and offer to check their order status',
      tags: [`agent:${agent.id}`],
      priority: 10,
    });
    const weather = await post<{ id: string }>('/guidelines', {
      condition: 'The customer asks about the weather forecast',
      action: 'Say you cannot forecast weather',
      tags: [`agent:${agent.id}`],
    });
    const foreign = await post<{ id: string }>('/guidelines', {
      condition: 'The customer wants a refund',
      action: 'Refuse every refund',
      tags: [`agent:${other.id}`],
    });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });

    const customer = await post<Event>(`/sessions/${session.id}/events`, {
      kind: 'message',
      source: 'customer',
      message: 'I want my money back for order 12345',
    });
    const ready = await get<Event[]>(`/sessions/${session.id}/events?min_offset=1&kinds=status&wait_for_data=30`).then(
      async function waitReady(events): Promise<Event[]> {
        if (events.some((e) => e.data.status === 'ready' || e.data.status === 'error')) return events;
        const next = await get<Event[]>(
          `/sessions/${session.id}/events?min_offset=${events.at(-1)!.offset + 1}&kinds=status&wait_for_data=30`,
        );
        return waitReady([...events, ...next]);
      },
    );
    expect(ready.map((e) => e.data.status)).toEqual(['acknowledged', 'processing', 'typing', 'ready']);

    const all = await get<Event[]>(`/sessions/${session.id}/events`);
    expect(all.map((e) => e.offset)).toEqual([...all.keys()]);
    expect(all.every((e) => e.correlation_id === customer.correlation_id)).toBe(true);
    const reply = all.find((e) => e.kind === 'message' && e.source === 'ai_agent')!;
    expect(reply.data.message).toBe("I will explain the 30-day refund policy. I'd be happy to check your order status.");

    const matched = ready.at(-1)!.data.data!.matched_guidelines!;
    expect(matched.map((m) => m.guideline_id)).toEqual([refund.id]);
    expect(matched[0]!.score).toBeGreaterThanOrEqual(0.3);
    expect(matched.map((m) => m.guideline_id)).not.toContain(weather.id);
    expect(matched.map((m) => m.guideline_id)).not.toContain(foreign.id);
    // The match and compose calls, and recall's query embedding (metered against budgets too).
    expect((ready.at(-1)!.data.data!.usage as { purpose: string }[]).map((u) => u.purpose).sort()).toEqual([
      'compose_reply',
      'knowledge.search',
      'match_guidelines',
    ]);
  });

  it('a human-agent message or a custom event starts no turn', async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Quiet' });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });
    await post(`/sessions/${session.id}/events`, { kind: 'message', source: 'human_agent', message: 'Hi, Bob here' });
    await post(`/sessions/${session.id}/events`, { kind: 'custom', source: 'customer_ui', data: { page: '/help' } });
    const response = await fetch(`${url}/sessions/${session.id}/events?min_offset=2&wait_for_data=1`);
    expect(response.status).toBe(504);
  });
});
