/**
 * `/metrics` after real turns (all-in-one, embedded adapters, the offline provider): the per-agent token and
 * cost counters equal what `GET /agents/{id}/usage` reports, turn stages and HTTP routes are timed, and the
 * output parses as Prometheus text.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { eventually } from '@tenet/testing';

/** Sum of every sample of `name` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) sum += Number(match[3]);
  }
  return sum;
}

describe('GET /metrics after turns', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-metrics-'));
    Object.assign(process.env, { TENET_LLM_PROVIDER: 'offline' });
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_SERVICE_NAME: 'tenet-metrics-test' }));
  });

  afterAll(async () => {
    await app.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  };

  async function turn(sessionId: string, message: string): Promise<void> {
    const posted = await call<{ offset: number }>('POST', `/sessions/${sessionId}/events`, {
      kind: 'message',
      source: 'customer',
      message,
    });
    for (let offset = posted.offset + 1; ;) {
      const events = await call<{ offset: number; data: { status?: string } }[]>(
        'GET',
        `/sessions/${sessionId}/events?min_offset=${offset}&kinds=status&wait_for_data=30`,
      );
      if (events.some((e) => e.data.status === 'ready')) return;
      offset = events.at(-1)!.offset + 1;
    }
  }

  it('counts tokens and cost per agent exactly as GET /agents/{id}/usage reports them', async () => {
    const agents = [
      await call<{ id: string }>('POST', '/agents', { name: 'Support' }),
      await call<{ id: string }>('POST', '/agents', { name: 'Sales' }),
    ];
    for (const [i, agent] of agents.entries()) {
      await call('POST', '/guidelines', {
        condition: 'The customer asks about refunds',
        action: 'Explain the refund policy',
        tags: [`agent:${agent.id}`],
      });
      const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
      for (let n = 0; n <= i; n++) await turn(session.id, `I want a refund for order ${n}`);
    }

    for (const agent of agents) {
      // Metering records the calls from the published usage events, a moment after the turn.
      const { usage, metrics } = await eventually(async () => {
        const usage = await call<{ calls: number; input_tokens: number; output_tokens: number; cost_estimate_usd: number }>(
          'GET',
          `/agents/${agent.id}/usage`,
        );
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(usage.calls).toBeGreaterThan(0);
        expect(sample(metrics, 'tenet_llm_calls_total', { agent_id: agent.id })).toBe(usage.calls);
        return { usage, metrics };
      });
      expect(usage.input_tokens).toBeGreaterThan(0);
      expect(sample(metrics, 'tenet_llm_tokens_total', { agent_id: agent.id, direction: 'input' })).toBe(usage.input_tokens);
      expect(sample(metrics, 'tenet_llm_tokens_total', { agent_id: agent.id, direction: 'output' })).toBe(usage.output_tokens);
      expect(sample(metrics, 'tenet_llm_cost_usd_total', { agent_id: agent.id })).toBeCloseTo(usage.cost_estimate_usd, 9);
    }
  });

  it('times turn stages, HTTP routes by pattern and the matcher, and reports the relay', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = await response.text();
    for (const stage of ['match', 'compose', 'total']) expect(sample(metrics, 'tenet_turn_duration_seconds_count', { stage })).toBe(3);
    expect(sample(metrics, 'tenet_turns_total', { outcome: 'ready' })).toBe(3);
    expect(sample(metrics, 'tenet_matcher_request_duration_seconds_count', { operation: 'match', outcome: 'ok' })).toBe(3);
    expect(sample(metrics, 'tenet_matcher_in_flight_requests', { operation: 'match' })).toBe(0);
    expect(
      sample(metrics, 'tenet_http_request_duration_seconds_count', { method: 'POST', route: '/sessions/:sessionId/events', status: '201' }),
    ).toBe(3);
    expect(metrics).not.toMatch(/route="\/sessions\/[a-zA-Z0-9_-]{6,}/);
    expect(metrics).toMatch(/^tenet_event_log_relay_leader\{service="tenet-metrics-test"\} 1$/m);
    expect(metrics).toMatch(/^tenet_process_resident_memory_bytes\{service="tenet-metrics-test"\} \d+/m);
  });
});
