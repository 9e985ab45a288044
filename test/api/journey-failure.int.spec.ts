/**
 * A journey whose tool step fails (ADR 0030): the tool server is down, so the step's tool call fails; the
 * journey's `on_failure` decides — by default the journey ends `Failed` (with failed_at and the reason), the
 * customer is told in the same turn, `journey.failed` is published (valid against its contract) and the session
 * goes on; `handoff` also hands the session to a human once the customer was told; `step` goes on at a step.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { contractFor } from '@tenet/contracts';
import { startAllInOne, startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import type { DeliveredMessage, MessageBus } from '@tenet/messaging';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: Record<string, unknown> & { message?: string; status?: string; data?: Record<string, unknown> };
}
interface Published {
  type: string;
  version: number;
  data: Record<string, unknown>;
}

/** A 127.0.0.1 port nothing listens on (bound, then released): the tool server is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The return journey; with `on_failure: {action: 'step', step: 'by_hand'}` it has a step reached only when the lookup fails. */
const journeyBody = (agentId: string, extra: Record<string, unknown> = {}) => {
  const byHand = (extra['on_failure'] as { step?: string } | undefined)?.step !== undefined;
  const base = plainJourney(agentId);
  return byHand
    ? {
        ...base,
        steps: [
          ...base.steps,
          {
            id: 'by_hand',
            name: 'Manual lookup',
            kind: 'chat',
            instruction: 'Tell them a colleague will look the order up by hand and email them today',
          },
        ],
        transitions: [...base.transitions, { from: 'by_hand', to: 'done', condition: 'The customer said thanks' }],
        ...extra,
      }
    : { ...base, ...extra };
};

const plainJourney = (agentId: string) => ({
  title: `Return an order ${randomUUID().slice(0, 8)}`,
  description: 'Find the order, then ask why it goes back',
  conditions: ['The customer wants to return an order'],
  tags: [`agent:${agentId}`],
  steps: [
    { id: 'ask_order', name: 'Order number', kind: 'chat', instruction: 'Ask for the order number' },
    { id: 'check_order', name: 'Look up the order', kind: 'tool', tool: 'down:get_order_status' },
    { id: 'ask_reason', name: 'Reason', kind: 'chat', instruction: 'Ask why they want to return it' },
    { id: 'done', name: 'Done', kind: 'final' },
  ],
  transitions: [
    { from: 'ask_order', to: 'check_order', condition: 'The customer gave their order number' },
    { from: 'check_order', to: 'ask_reason' },
    { from: 'ask_reason', to: 'done', condition: 'The customer gave a reason' },
  ],
  initial_step: 'ask_order',
});

describe('a journey whose tool step fails (embedded adapters, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  let orders: DemoOrderService;
  let deadPort: number;
  const { call, created, turnEvents } = gatewayHttp(() => url);
  const turn = (sessionId: string, message: string): Promise<Event[]> => turnEvents<Event>(sessionId, message);
  const ready = (events: Event[]): Record<string, unknown> =>
    events.find((e) => e.kind === 'status' && e.data.status === 'ready')?.data.data ?? {};
  const reply = (events: Event[]): string | undefined => events.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-journey-failure-'));
    orders = await startDemoOrderService();
    deadPort = await closedPort();
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline', TENET_DEMO: 'off' },
      { toolAllowedHosts: [orders.hostPort, `127.0.0.1:${deadPort}`] },
    ));
    // The order service's operations, served from an address where nothing listens.
    expect(
      (await call('/services/down', 'PUT', { kind: 'openapi', openapi: { url: `http://127.0.0.1:${deadPort}`, source: orders.source } }))
        .status,
    ).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await orders?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every journey event published for the session from now on. */
  async function publishedFor(sessionId: string): Promise<{ seen: Published[]; stop: () => Promise<void> }> {
    const seen: Published[] = [];
    const subscription = await app
      .get<MessageBus>(MESSAGE_BUS)
      .consume(
        { durable: `journey-failure-${randomUUID()}`, filterSubject: `tenet.v1.journey.${sessionId}.>` },
        async (message: DeliveredMessage) => {
          seen.push(message.data as Published);
        },
      );
    return { seen, stop: () => subscription.stop() };
  }

  const valid = (event: Published): unknown[] => {
    const validate = ajv.compile(contractFor(event.type)!.schema);
    return validate(event) ? [] : (validate.errors ?? []);
  };

  it('by default: the journey ends Failed with failed_at and the reason, the customer is told, journey.failed is published, and the session goes on', async () => {
    const agent = await created('/agents', { name: 'Returns desk' });
    const journey = await created<{ id: string; on_failure: unknown }>('/journeys', journeyBody(agent.id));
    expect(journey.on_failure).toEqual({ action: 'end' });
    const session = await created('/sessions', { agent_id: agent.id });
    const { seen, stop } = await publishedFor(session.id);

    expect(ready(await turn(session.id, 'Hi, I want to return an order'))['journey_states']).toEqual([
      expect.objectContaining({ journey_id: journey.id, status: 'Active', step_id: 'ask_order' }),
    ]);
    const failing = await turn(session.id, 'My order number is 55555');
    const data = ready(failing);
    expect(data['journey_tool_step']).toMatchObject({ journey_id: journey.id, step_id: 'check_order', status: 'failed' });
    expect(data['journey_states']).toEqual([
      expect.objectContaining({
        journey_id: journey.id,
        status: 'Failed',
        step_id: 'check_order',
        failed_at: expect.any(String) as unknown,
        failure: {
          code: expect.stringMatching(/^TOOLS\./) as unknown,
          message: 'the tool down:get_order_status failed',
          step: 'check_order',
        },
      }),
    ]);
    expect(data['active_journey']).toBeUndefined();
    // The customer gets a reply in the same turn.
    expect(reply(failing)).toMatch(/something went wrong on our side/);

    const failed = await eventually(() => {
      const found = seen.find((e) => e.type === 'journey.failed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(failed).toMatchObject({
      version: 1,
      data: {
        session_id: session.id,
        journey_id: journey.id,
        step: 'check_order',
        outcome: 'end',
        reason: { code: expect.stringMatching(/^TOOLS\./) as unknown },
      },
    });
    expect(valid(failed)).toEqual([]);
    await stop();

    // The journey record is listed with the session's events; the session goes on (no retry of the failed step).
    const records = ((await call(`/sessions/${session.id}/events?kinds=journey_transition`)).body as Event[]).map(
      (e) => (e.data as { event?: string }).event,
    );
    expect(records).toContain('journey_failed');
    const next = await turn(session.id, 'Ok. What are your opening hours?');
    expect(reply(next)).toBeTruthy();
    expect(ready(next)['journey_tool_step']).toBeUndefined();
    expect(((await call(`/sessions/${session.id}`)).body as { mode: string }).mode).toBe('auto');

    // on_failure is a setting like any: PATCH sets it, null restores the default.
    expect((await call(`/journeys/${journey.id}`, 'PATCH', { on_failure: { action: 'handoff' } })).body).toMatchObject({
      on_failure: { action: 'handoff' },
    });
    expect((await call(`/journeys/${journey.id}`, 'PATCH', { on_failure: null })).body).toMatchObject({ on_failure: { action: 'end' } });
  }, 120_000);

  it('on_failure handoff: the customer is told, then the session goes to a human (mode manual, reason journey)', async () => {
    const agent = await created('/agents', { name: 'Returns desk with humans' });
    const journey = await created<{ id: string }>('/journeys', journeyBody(agent.id, { on_failure: { action: 'handoff' } }));
    const session = await created('/sessions', { agent_id: agent.id });
    const seen: Published[] = [];
    const subscription = await app
      .get<MessageBus>(MESSAGE_BUS)
      .consume(
        { durable: `journey-handoff-${randomUUID()}`, filterSubject: `tenet.v1.session.${session.id}.mode_changed` },
        async (message: DeliveredMessage) => {
          seen.push(message.data as Published);
        },
      );
    await turn(session.id, 'Hi, I want to return an order');
    const failing = await turn(session.id, 'My order number is 55555');
    expect(reply(failing)).toMatch(/something went wrong on our side/);
    expect(ready(failing)['journey_states']).toEqual([expect.objectContaining({ journey_id: journey.id, status: 'Failed' })]);
    expect(((await call(`/sessions/${session.id}`)).body as { mode: string }).mode).toBe('manual');
    const changed = await eventually(() => {
      expect(seen).toHaveLength(1);
      return seen[0]!;
    });
    expect(changed).toMatchObject({
      type: 'session.mode_changed',
      data: { mode: 'manual', previous_mode: 'auto', reason: 'journey', journey_id: journey.id },
    });
    expect(valid(changed)).toEqual([]);
    await subscription.stop();
  }, 120_000);

  it('on_failure step: the journey goes on at the named step; on_failure is checked on create and PATCH', async () => {
    const agent = await created('/agents', { name: 'Returns desk by hand' });
    const journey = await created<{ id: string }>('/journeys', journeyBody(agent.id, { on_failure: { action: 'step', step: 'by_hand' } }));
    const session = await created('/sessions', { agent_id: agent.id });
    await turn(session.id, 'Hi, I want to return an order');
    const failing = await turn(session.id, 'My order number is 55555');
    expect(ready(failing)['journey_states']).toEqual([
      expect.objectContaining({ journey_id: journey.id, status: 'Active', step_id: 'by_hand' }),
    ]);
    expect(reply(failing)).toMatch(/colleague will look the order up by hand/i);

    const refused = await call('/journeys', 'POST', journeyBody(agent.id, { on_failure: { action: 'step', step: 'nowhere' } }));
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('on_failure.step must reference an existing step: nowhere does not exist');
    const badAction = await call(`/journeys/${journey.id}`, 'PATCH', { on_failure: { action: 'retry' } });
    expect(badAction.status).toBe(422);
    expect(JSON.stringify(badAction.body)).toContain('on_failure.action must be one of end, handoff, step');
    const toolStep = await call(`/journeys/${journey.id}`, 'PATCH', { on_failure: { action: 'step', step: 'check_order' } });
    expect(toolStep.status).toBe(422);
    // Without on_failure the manual step could never be reached: refused, naming it.
    const unreachable = await call(`/journeys/${journey.id}`, 'PATCH', { on_failure: null });
    expect(unreachable.status).toBe(422);
    expect(JSON.stringify(unreachable.body)).toContain('by_hand is not');
  }, 120_000);
});
