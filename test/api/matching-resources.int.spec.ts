import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

interface Detail {
  loc: (string | number)[];
  msg: string;
}

describe('matching resources: relationships, canned responses, agent tools and settings', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-matching-resources-'));
    ({ app, url } = await startAllInOne({ TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (response.status === 204 ? undefined : await response.json()) as T };
  };
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const result = await call<T>(method, path, body);
    if (result.status >= 300) throw new Error(`${method} ${path} → ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  };
  const turn = async (sessionId: string, message: string) => {
    const posted = await ok<{ offset: number; correlation_id: string }>('POST', `/sessions/${sessionId}/events`, {
      kind: 'message',
      source: 'customer',
      message,
    });
    let events: {
      offset: number;
      kind: string;
      source: string;
      correlation_id: string;
      data: { message?: string; status?: string; data?: Record<string, unknown> };
    }[] = [];
    while (!events.some((e) => e.data.status === 'ready' || e.data.status === 'error')) {
      events = [
        ...events,
        ...(await ok<typeof events>(
          'GET',
          `/sessions/${sessionId}/events?min_offset=${(events.at(-1)?.offset ?? posted.offset) + 1}&wait_for_data=30`,
        )),
      ];
    }
    const ready = events.find((e) => e.data.status === 'ready' || e.data.status === 'error')!;
    if (ready.data.status === 'error') throw new Error(`turn failed: ${JSON.stringify(ready.data.data)}`);
    return {
      reply: events.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message,
      ready: ready.data.data as {
        matched_guidelines: { guideline_id: string }[];
        canned_response_id?: string;
        provenance?: { relationships?: { steps: unknown[] } };
      },
    };
  };

  it('relationships: Parlant routes and shapes, references checked, nothing stored on error, and a priority relationship decides a turn', async () => {
    const agent = await ok<{ id: string }>('POST', '/agents', { name: 'Support' });
    const refund = await ok<{ id: string }>('POST', '/guidelines', {
      condition: 'The customer asks for a refund',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent.id}`],
    });
    const upsell = await ok<{ id: string }>('POST', '/guidelines', {
      condition: 'The customer mentions an order',
      action: 'Offer the premium plan',
      tags: [`agent:${agent.id}`],
    });
    const tag = await ok<{ id: string }>('POST', '/tags', { name: 'sales' });

    const bad = await call<{ detail: Detail[] }>('POST', '/relationships', {
      source_guideline: refund.id,
      target_guideline: 'missing',
      kind: 'priority',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'target_guideline'], msg: 'guideline missing does not exist' }),
    ]);
    expect(
      (
        await call<{ detail: Detail[] }>('POST', '/relationships', {
          source_guideline: refund.id,
          source_tag: tag.id,
          target_guideline: upsell.id,
          kind: 'priority',
        })
      ).body.detail[0]!.msg,
    ).toBe('exactly one of source_guideline and source_tag is required');
    expect(
      (
        await call<{ detail: Detail[] }>('POST', '/relationships', {
          source_guideline: refund.id,
          target_guideline: refund.id,
          kind: 'priority',
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await call<{ detail: Detail[] }>('POST', '/relationships', {
          source_guideline: refund.id,
          target_guideline: upsell.id,
          kind: 'likes',
        })
      ).body.detail[0]!.loc,
    ).toEqual(['body', 'kind']);
    expect(await ok<unknown[]>('GET', '/relationships')).toEqual([]);

    const created = await ok<{ id: string; kind: string; source_guideline: { id: string }; target_guideline: { id: string } }>(
      'POST',
      '/relationships',
      { source_guideline: refund.id, target_guideline: upsell.id, kind: 'priority' },
    );
    expect(created).toMatchObject({ kind: 'priority', source_guideline: { id: refund.id }, target_guideline: { id: upsell.id } });
    expect((await ok<{ id: string }[]>('GET', `/relationships?guideline_id=${upsell.id}`)).map((r) => r.id)).toEqual([created.id]);
    expect(await ok<unknown[]>('GET', '/relationships?kind=entailment')).toEqual([]);

    const session = await ok<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
    const { ready } = await turn(session.id, 'I want a refund for my order');
    expect(ready.matched_guidelines.map((m) => m.guideline_id)).toEqual([refund.id]);
    expect(ready.provenance?.relationships?.steps).toEqual([
      expect.objectContaining({ kind: 'priority', effect: 'deactivated', guideline_id: upsell.id }),
    ]);

    expect((await call('DELETE', `/relationships/${created.id}`)).status).toBe(204);
    expect((await call('GET', `/relationships/${created.id}`)).status).toBe(404);
  });

  it('canned responses: CRUD with field checks, and strict_canned turns say only templates', async () => {
    const agent = await ok<{ id: string }>('POST', '/agents', {
      name: 'Strict',
      composition_mode: 'strict_canned',
      no_match_message: 'Let me connect you with a colleague.',
    });
    const undeclared = await call<{ detail: Detail[] }>('POST', '/canned_responses', {
      value: 'Hello {{name}}',
      fields: [],
      tags: [`agent:${agent.id}`],
    });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body.detail[0]!.msg).toBe('value uses {{name}} but fields does not declare "name"');
    const template = await ok<{ id: string; fields: { name: string }[] }>('POST', '/canned_responses', {
      value: 'Our refund window is 30 days from delivery, and refunds reach your card within a week.',
      tags: [`agent:${agent.id}`],
    });
    expect(template.fields).toEqual([]);
    await ok('POST', '/guidelines', {
      condition: 'The customer asks for a refund',
      action: 'Explain the refund window and when the refund arrives',
      tags: [`agent:${agent.id}`],
    });

    const session = await ok<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
    const refund = await turn(session.id, 'How does a refund work?');
    expect(refund.reply).toBe('Our refund window is 30 days from delivery, and refunds reach your card within a week.');
    expect(refund.ready.canned_response_id).toBe(template.id);
    const offTopic = await turn(session.id, 'Can you write me a poem about volcanoes?');
    expect(offTopic.reply).toBe('Let me connect you with a colleague.');

    expect((await ok<{ value: string }>('PATCH', `/canned_responses/${template.id}`, { value: 'Refunds: 30 days.' })).value).toBe(
      'Refunds: 30 days.',
    );
    expect((await call('DELETE', `/canned_responses/${template.id}`)).status).toBe(204);
  });

  it('agents: tool rules and matching settings are validated, nothing stored on error, and guidelines may name only defined tools', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ name: '1bad', description: 'x', parameters: { type: 'object' } }, ['body', 'tools', 0, 'name']],
      [{ name: 'ok', description: '', parameters: { type: 'object' } }, ['body', 'tools', 0, 'description']],
      [{ name: 'ok', description: 'x', parameters: { type: 'string' } }, ['body', 'tools', 0, 'parameters']],
      [
        { name: 'ok', description: 'x', parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } },
        ['body', 'tools', 0, 'parameters'],
      ],
      [{ name: 'ok', description: 'x', parameters: { type: 'object' }, timeout_secs: 301 }, ['body', 'tools', 0, 'timeout_secs']],
      [
        {
          name: 'ok',
          description: 'x',
          parameters: { type: 'object' },
          retry_config: { max_attempts: 11, delay_ms: 100, backoff_multiplier: 2 },
        },
        ['body', 'tools', 0, 'retry_config', 'max_attempts'],
      ],
      [
        {
          name: 'ok',
          description: 'x',
          parameters: { type: 'object' },
          retry_config: { max_attempts: 3, delay_ms: 5, backoff_multiplier: 2 },
        },
        ['body', 'tools', 0, 'retry_config', 'delay_ms'],
      ],
      [
        {
          name: 'ok',
          description: 'x',
          parameters: { type: 'object' },
          retry_config: { max_attempts: 3, delay_ms: 100, backoff_multiplier: 11 },
        },
        ['body', 'tools', 0, 'retry_config', 'backoff_multiplier'],
      ],
    ];
    const before = (await ok<unknown[]>('GET', '/agents')).length;
    for (const [tool, loc] of cases) {
      const result = await call<{ detail: Detail[] }>('POST', '/agents', { name: 'Tools', tools: [tool] });
      expect({ tool, status: result.status, loc: result.body.detail?.[0]?.loc }).toEqual({ tool, status: 422, loc });
    }
    const twice = await call<{ detail: Detail[] }>('POST', '/agents', {
      name: 'Tools',
      tools: [
        { name: 'a', description: 'x', parameters: { type: 'object' } },
        { name: 'a', description: 'y', parameters: { type: 'object' } },
      ],
    });
    expect(twice.body.detail[0]).toMatchObject({ loc: ['body', 'tools', 1, 'name'] });
    expect((await call<{ detail: Detail[] }>('POST', '/agents', { name: 'M', matching: { threshold: 1.5 } })).body.detail[0]!.loc).toEqual([
      'body',
      'matching',
      'threshold',
    ]);
    expect((await call<{ detail: Detail[] }>('POST', '/agents', { name: 'M', matching: { max_batches: 4 } })).body.detail[0]!.loc).toEqual([
      'body',
      'matching',
      'max_batches',
    ]);
    expect((await ok<unknown[]>('GET', '/agents')).length).toBe(before);

    const agent = await ok<{ id: string; matching: Record<string, unknown>; tools: { name: string }[] }>('POST', '/agents', {
      name: 'Orders',
      tools: [
        {
          name: 'check_order',
          description: 'Look up an order',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
          timeout_secs: 30,
        },
      ],
      matching: { top_n: 5 },
      llm: { provider: 'offline' },
    });
    expect(
      (
        await call<{ detail: Detail[] }>('PATCH', `/agents/${agent.id}`, {
          llm: { provider: 'offline', fallback: { provider: 'offline' } },
        })
      ).body.detail[0],
    ).toMatchObject({ loc: ['body', 'llm', 'fallback'] });
    expect(agent.matching).toEqual({
      threshold: 0.3,
      top_n: 5,
      prefilter_k: 40,
      max_batch_tokens: 12_000,
      max_batches: 3,
      temperatures: [0, 0.3],
    });
    expect(
      (await ok<{ matching: { top_n: number; threshold: number } }>('PATCH', `/agents/${agent.id}`, { matching: { threshold: 0.5 } }))
        .matching,
    ).toMatchObject({ top_n: 5, threshold: 0.5 });
    const unknownTool = await call<{ detail: Detail[] }>('POST', '/guidelines', {
      condition: 'c',
      action: 'a',
      tools: ['refund_order'],
      tags: [`agent:${agent.id}`],
    });
    expect(unknownTool.body.detail[0]).toMatchObject({
      loc: ['body', 'tools', 0],
      msg: 'tools must name tools defined on the agent: refund_order is not defined',
    });
    const withTool = await ok<{ id: string }>('POST', '/guidelines', {
      condition: 'The customer asks where order 12345 is',
      action: 'Check the order',
      tools: ['check_order'],
      tags: [`agent:${agent.id}`],
    });

    const session = await ok<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
    const { ready } = await turn(session.id, 'Where is my order 12345?');
    expect(ready.matched_guidelines.map((m) => m.guideline_id)).toEqual([withTool.id]);
    expect(
      (ready as unknown as { guideline_match_result: { tools_to_execute: unknown[] } }).guideline_match_result.tools_to_execute,
    ).toEqual([{ tool_name: 'check_order', priority: 0, guideline_id: withTool.id, parameters: { order_id: '12345' } }]);
  });
});
