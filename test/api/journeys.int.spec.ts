import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE, SCHEDULER } from '@tenet/platform-runtime';
import type { Scheduler } from '@tenet/scheduling';
import { JourneyTimers } from '@tenet/journeys-client';
import { ParlantClient, ParlantError } from 'parlant-client';

interface Detail {
  loc: (string | number)[];
  msg: string;
}
interface JourneyWire {
  id: string;
  title: string;
  conditions: string[];
  triggers: string[];
  tags: string[];
  labels: string[];
  priority: number;
  steps: { id: string; kind: string }[];
  transitions: unknown[];
  initial_step?: string;
}

const returnsGraph = {
  steps: [
    { id: 'ask_order', name: 'Ask for the order number', kind: 'chat', instruction: 'Ask for the order number', required_context: [] },
    { id: 'decide', name: 'Refund or exchange', kind: 'fork', instruction: 'Ask whether they want a refund or an exchange' },
    { id: 'refund', name: 'Refund', kind: 'tool', tool: 'issue_refund' },
    { id: 'exchange', name: 'Exchange', kind: 'chat', instruction: 'Offer an exchange' },
    { id: 'done', name: 'Confirmation', kind: 'final', instruction: 'Confirm' },
  ],
  transitions: [
    { from: 'ask_order', to: 'decide', condition: 'the customer gave their order number' },
    { from: 'decide', to: 'refund', condition: 'the customer wants their money back', priority: 10 },
    { from: 'decide', to: 'exchange', condition: 'the customer wants another item' },
    { from: 'refund', to: 'done' },
    { from: 'exchange', to: 'done' },
  ],
  initial_step: 'ask_order',
};

describe("journeys: Parlant /journeys with Tenet's steps and transitions", () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let client: ParlantClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-journeys-'));
    ({ app, url } = await startAllInOne({ TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
    client = new ParlantClient({ environment: url });
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; type: string | null }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const type = response.headers.get('content-type');
    return { status: response.status, type, body: (text && type?.includes('json') ? JSON.parse(text) : text) as T };
  };
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const result = await call<T>(method, path, body);
    if (result.status >= 300) throw new Error(`${method} ${path} → ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  };
  const statusOf = async (promise: Promise<unknown>): Promise<number | undefined> => {
    try {
      await promise;
      return undefined;
    } catch (error) {
      return error instanceof ParlantError ? error.statusCode : -1;
    }
  };

  it('parlant-client 3.3.1: create, list, retrieve, update, mermaid, delete', async () => {
    const tag = await client.tags.create({ name: `cards-${Date.now()}` });
    const created = await client.journeys.create({
      title: 'Card help',
      description: 'Help a customer whose card does not work',
      conditions: ['the customer needs their card unlocked', 'the customer reports a broken card'],
      tags: [tag.id],
      labels: ['vip'],
      priority: 3,
      compositionMode: 'strict_canned',
    });
    expect(created).toMatchObject({ title: 'Card help', tags: [tag.id], labels: ['vip'], priority: 3, compositionMode: 'strict_canned' });
    expect(created.conditions).toHaveLength(2);

    // Conditions are guidelines tagged journey:<id>, as in Parlant.
    const conditionGuidelines = await Promise.all(
      created.conditions.map((id) => ok<{ guideline: { condition: string; tags: string[] } }>('GET', `/guidelines/${id}`)),
    );
    expect(conditionGuidelines.map((g) => g.guideline)).toEqual([
      expect.objectContaining({ condition: 'the customer needs their card unlocked', tags: [`journey:${created.id}`] }),
      expect.objectContaining({ condition: 'the customer reports a broken card', tags: [`journey:${created.id}`] }),
    ]);

    expect((await client.journeys.list()).map((j) => j.id)).toContain(created.id);
    expect((await client.journeys.list({ tagId: tag.id })).map((j) => j.id)).toEqual([created.id]);
    expect((await client.journeys.list({ tagId: 'no-such-tag' })).map((j) => j.id)).not.toContain(created.id);
    expect(await client.journeys.retrieve(created.id)).toMatchObject({ id: created.id, conditions: created.conditions });

    const extra = await client.guidelines.create({ condition: 'the customer lost their card' });
    const updated = await client.journeys.update(created.id, {
      title: 'Card support',
      conditions: { add: [extra.id], remove: [created.conditions[0]!] },
      tags: { remove: [tag.id] },
      labels: { upsert: ['urgent'], remove: ['vip'] },
      priority: 5,
    });
    expect(updated).toMatchObject({
      title: 'Card support',
      conditions: [created.conditions[1], extra.id],
      tags: [],
      labels: ['urgent'],
      priority: 5,
    });
    // The removed condition guideline belonged only to this journey: deleted. The added one now carries the journey tag.
    expect((await call('GET', `/guidelines/${created.conditions[0]}`)).status).toBe(404);
    expect((await ok<{ guideline: { tags: string[] } }>('GET', `/guidelines/${extra.id}`)).guideline.tags).toEqual([
      `journey:${created.id}`,
    ]);
    expect(await statusOf(client.journeys.update(created.id, { conditions: { add: ['missing-guideline'] } }))).toBe(422);

    // Deleting a condition guideline directly takes it out of the journey.
    const spare = await client.guidelines.create({ condition: 'the customer mentions a PIN' });
    await client.journeys.update(created.id, { conditions: { add: [spare.id] } });
    await client.guidelines.delete(spare.id);
    expect((await client.journeys.retrieve(created.id)).conditions).toEqual([created.conditions[1], extra.id]);

    const chart = await client.journeys.mermaid(created.id);
    expect(chart).toBe('stateDiagram-v2\n    state "Card support" as J\n    [*] --> J\n    J --> [*]');

    await client.journeys.delete(created.id);
    expect(await statusOf(client.journeys.retrieve(created.id))).toBe(404);
    expect(await statusOf(client.journeys.mermaid(created.id))).toBe(404);
    expect(await statusOf(client.journeys.delete(created.id))).toBe(404);
    expect((await call('GET', `/guidelines/${created.conditions[1]}`)).status).toBe(404);
    expect((await call('GET', `/guidelines/${extra.id}`)).status).toBe(404);
  });

  it('accepts Parlant HEAD `triggers`, stores the step graph, draws it as a stateDiagram and answers text/plain', async () => {
    const agent = await ok<{ id: string }>('POST', '/agents', {
      name: 'Returns desk',
      tools: [
        { name: 'issue_refund', description: 'Refund an order', parameters: { type: 'object', properties: { order: { type: 'string' } } } },
      ],
    });
    const journey = await ok<JourneyWire>('POST', '/journeys', {
      title: 'Returns',
      description: 'Take an item back',
      triggers: ['the customer wants to return an item'],
      tags: [`agent:${agent.id}`],
      ...returnsGraph,
    });
    expect(journey.triggers).toEqual(journey.conditions);
    expect(journey).toMatchObject({
      initial_step: 'ask_order',
      steps: expect.arrayContaining([expect.objectContaining({ id: 'refund', kind: 'tool' })]),
    });
    const mermaid = await call<string>('GET', `/journeys/${journey.id}/mermaid`);
    expect(mermaid.type).toMatch(/^text\/plain/);
    expect(mermaid.body.split('\n')).toEqual(
      expect.arrayContaining([
        'stateDiagram-v2',
        '    [*] --> S0',
        '    S1 --> S2: the customer wants their money back (priority 10)',
        '    S2 --> S4',
        '    S4 --> [*]',
      ]),
    );

    // PATCH replaces the graph and validates it as a whole.
    const patched = await ok<JourneyWire>('PATCH', `/journeys/${journey.id}`, {
      steps: returnsGraph.steps.filter((s) => s.id !== 'refund'),
      transitions: returnsGraph.transitions
        .filter((t) => t.to !== 'refund' && t.from !== 'refund')
        .concat([{ from: 'decide', to: 'done', condition: 'the customer changes their mind' }]),
    });
    expect(patched.steps.map((s) => s.id)).toEqual(['ask_order', 'decide', 'exchange', 'done']);
    const broken = await call<{ detail: Detail[] }>('PATCH', `/journeys/${journey.id}`, { initial_step: 'refund' });
    expect(broken.status).toBe(422);
    expect(broken.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'initial_step'],
        msg: 'initial_step must reference an existing step: refund does not exist',
      }),
    ]);
    expect((await ok<JourneyWire>('GET', `/journeys/${journey.id}`)).initial_step).toBe('ask_order');
  });

  it.each([
    [
      'a transition to a missing step',
      { transitions: [{ from: 'ask_order', to: 'ghost', condition: 'c' }, ...returnsGraph.transitions.slice(1)] },
      ['body', 'transitions', 0, 'to'],
      /transitions\[0\]\.to must reference an existing step: ghost/,
    ],
    [
      'a duplicate step id',
      { steps: [...returnsGraph.steps, { id: 'done', name: 'Again', kind: 'final' }] },
      ['body', 'steps', 5, 'id'],
      /must be unique within the journey/,
    ],
    [
      'an unreachable step',
      { steps: [...returnsGraph.steps, { id: 'lost', name: 'Lost', kind: 'final' }] },
      ['body', 'steps', 5],
      /must be reachable from the initial step/,
    ],
    [
      'a tool no agent defines',
      { steps: returnsGraph.steps.map((s) => (s.id === 'refund' ? { ...s, tool: 'wire_money' } : s)) },
      ['body', 'steps', 2, 'tool'],
      /wire_money is not defined/,
    ],
    [
      'a fork branch without condition',
      {
        transitions: returnsGraph.transitions.map((t) =>
          t.to === 'exchange' && t.from === 'decide' ? { from: 'decide', to: 'exchange' } : t,
        ),
      },
      ['body', 'transitions', 2, 'condition'],
      /required on a branch of fork decide/,
    ],
    ['no initial step', { initial_step: undefined }, ['body', 'initial_step'], /initial_step is required/],
    [
      'an unknown step kind',
      { steps: [{ id: 'x', name: 'x', kind: 'wait' }] },
      ['body', 'steps', 0, 'kind'],
      /kind must be one of chat, tool, fork, final/,
    ],
    ['an empty description', { description: '' }, ['body', 'description'], /description must be 1-1000 characters/],
    [
      'a transition priority out of range',
      { transitions: returnsGraph.transitions.map((t, i) => (i === 0 ? { ...t, priority: 500 } : t)) },
      ['body', 'transitions', 0, 'priority'],
      /from -100 to 100/,
    ],
    ['no conditions at all', { conditions: undefined }, ['body', 'conditions'], /conditions \(or triggers\) is required/],
  ] as const)('refuses %s with a 422 naming the field, and stores nothing', async (_name, change, loc, msg) => {
    const before = {
      journeys: (await ok<unknown[]>('GET', '/journeys')).length,
      guidelines: (await ok<unknown[]>('GET', '/guidelines')).length,
    };
    const body = {
      title: 'Returns',
      description: 'Take an item back',
      conditions: ['the customer wants to return an item'],
      ...returnsGraph,
      ...change,
    };
    const response = await call<{ detail: Detail[] }>('POST', '/journeys', body);
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: [...loc], msg: expect.stringMatching(msg) })]),
    );
    expect((await ok<unknown[]>('GET', '/journeys')).length).toBe(before.journeys);
    expect((await ok<unknown[]>('GET', '/guidelines')).length).toBe(before.guidelines);
  });

  it("a journey's condition guidelines reach the matcher for the agents it applies to, and not with enable_journeys off", async () => {
    const agent = await ok<{ id: string }>('POST', '/agents', { name: 'Returns helper' });
    const journey = await ok<JourneyWire>('POST', '/journeys', {
      title: 'Item return',
      description: 'Take an item back',
      conditions: ['the customer wants to return an item they bought'],
      tags: [`agent:${agent.id}`],
    });
    const turn = async (message: string): Promise<string[]> => {
      const session = await ok<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
      const posted = await ok<{ offset: number }>('POST', `/sessions/${session.id}/events`, {
        kind: 'message',
        source: 'customer',
        message,
      });
      let events: { offset: number; data: { status?: string; data?: { matched_guidelines?: { guideline_id: string }[] } } }[] = [];
      while (!events.some((e) => e.data.status === 'ready' || e.data.status === 'error')) {
        events = [
          ...events,
          ...(await ok<typeof events>(
            'GET',
            `/sessions/${session.id}/events?min_offset=${(events.at(-1)?.offset ?? posted.offset) + 1}&wait_for_data=30`,
          )),
        ];
      }
      const ready = events.find((e) => e.data.status === 'ready' || e.data.status === 'error')!;
      expect(ready.data.status).toBe('ready');
      return (ready.data.data?.matched_guidelines ?? []).map((m) => m.guideline_id);
    };
    expect(await turn('Hi, I want to return an item I bought last week')).toContain(journey.conditions[0]);
    await ok('PATCH', `/agents/${agent.id}`, { config: { enable_journeys: false } });
    expect(await turn('Hi, I want to return an item I bought last week')).not.toContain(journey.conditions[0]);
  });

  it('guideline journey_id/journey_step and Agent.journeys resolve; deleting the journey removes what depended on it', async () => {
    const journey = await ok<JourneyWire>('POST', '/journeys', {
      title: 'Onboarding',
      description: 'Set up a new account',
      conditions: ['the customer wants to open an account'],
      steps: [
        { id: 'welcome', name: 'Welcome', kind: 'chat', instruction: 'Greet' },
        { id: 'done', name: 'Done', kind: 'final' },
      ],
      transitions: [{ from: 'welcome', to: 'done', condition: 'the customer is ready' }],
      initial_step: 'welcome',
    });
    const scoped = await ok<{ id: string; journey_id: string; journey_step: string }>('POST', '/guidelines', {
      condition: 'the customer asks why',
      action: 'Explain the steps',
      journey_id: journey.id,
      journey_step: 'welcome',
    });
    expect(scoped).toMatchObject({ journey_id: journey.id, journey_step: 'welcome' });
    const badStep = await call<{ detail: Detail[] }>('POST', '/guidelines', {
      condition: 'c',
      action: 'a',
      journey_id: journey.id,
      journey_step: 'payment',
    });
    expect(badStep.status).toBe(422);
    expect(badStep.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'journey_step'], msg: expect.stringMatching(/payment is not one/) }),
    ]);
    expect(
      (await call<{ detail: Detail[] }>('POST', '/guidelines', { condition: 'c', action: 'a', journey_id: 'nope' })).body.detail,
    ).toEqual([expect.objectContaining({ loc: ['body', 'journey_id'], msg: expect.stringMatching(/nope does not exist/) })]);
    expect((await call('POST', '/guidelines', { condition: 'c', action: 'a', tags: [`journey:${journey.id}`] })).status).toBe(201);
    // The step a guideline is scoped to cannot be removed from under it.
    const dropWelcome = await call<{ detail: Detail[] }>('PATCH', `/journeys/${journey.id}`, {
      steps: [
        { id: 'start', name: 'Start', kind: 'chat', instruction: 'Greet' },
        { id: 'done', name: 'Done', kind: 'final' },
      ],
      transitions: [{ from: 'start', to: 'done', condition: 'the customer is ready' }],
      initial_step: 'start',
    });
    expect(dropWelcome.status).toBe(422);
    expect(dropWelcome.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'steps'], msg: expect.stringMatching(new RegExp(`guideline ${scoped.id} is scoped to it`)) }),
    ]);

    const agent = await ok<{ id: string; journeys: string[] }>('POST', '/agents', { name: 'Onboarder', journeys: [journey.id] });
    expect(agent.journeys).toEqual([journey.id]);
    const unknown = await call<{ detail: Detail[] }>('POST', '/agents', { name: 'X', journeys: [journey.id, 'missing'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'journeys', 1], msg: expect.stringMatching(/missing does not exist/) }),
    ]);
    expect((await call<{ detail: Detail[] }>('PATCH', `/agents/${agent.id}`, { journeys: [journey.id, journey.id] })).body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'journeys', 1] }),
    ]);

    expect((await call('DELETE', `/journeys/${journey.id}`)).status).toBe(204);
    expect((await ok<{ journeys: string[] }>('GET', `/agents/${agent.id}`)).journeys).toEqual([]);
    expect((await call('GET', `/guidelines/${scoped.id}`)).status).toBe(404);
  });

  it('rebuilds the abandon timer of a journey in progress from the event log at start-up (a scheduler that lost it)', async () => {
    const agent = await ok<{ id: string }>('POST', '/agents', { name: 'Timers' });
    const journey = await ok<JourneyWire>('POST', '/journeys', {
      title: 'Returns',
      description: 'Take an item back',
      triggers: ['the customer wants to return an item'],
      tags: [`agent:${agent.id}`],
      timeouts: { abandon_after_secs: 600, expire_after_secs: 3_600 },
      steps: [returnsGraph.steps[0], { id: 'done', name: 'Done', kind: 'final' }],
      transitions: [{ from: 'ask_order', to: 'done', condition: 'the customer gave their order number' }],
      initial_step: 'ask_order',
    });
    const session = await ok<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
    // The journey started 100 s ago, as the session's log records it; its timer was never armed (lost with Redis).
    const startedAt = Date.now() - 100_000;
    const activated = {
      journeyId: journey.id,
      sessionId: session.id,
      step: 'ask_order',
      resumed: false,
      at: startedAt,
      event: 'journey_activated',
      journey_id: journey.id,
    };
    await app
      .get<EventStore>(EVENT_STORE)
      .append(`session-${session.id}`, [
        { type: 'journey_transition', data: { session_id: session.id, source: 'system', correlation_id: 'test', data: activated } },
      ]);
    const scheduler = app.get<Scheduler>(SCHEDULER);
    const jobId = `journey-abandon-${session.id}-${journey.id}-1`;
    expect(await scheduler.cancel('journey-timers', jobId)).toBe(false);

    const timers = app.get(JourneyTimers);
    expect(await timers.rearmFromLog()).toBeGreaterThanOrEqual(1);
    // Idempotent: every replica re-arms at every start; the scheduler keeps one job per id.
    expect(await timers.rearmFromLog()).toBeGreaterThanOrEqual(1);
    expect(await scheduler.cancel('journey-timers', jobId)).toBe(true);
    expect(await scheduler.cancel('journey-timers', jobId)).toBe(false);
  });
});
