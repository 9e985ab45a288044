import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JOURNEYS_ADVANCE_SUBJECT, type AdvanceJourneysReplyV1, type AdvanceJourneysRequestV1 } from '@tenet/contracts';
import { InProcessMessageBus, RemoteHandlerError, TenetTransport } from '@tenet/messaging';
import { JourneyEngineModule } from './journey-engine.module.js';

type Definition = AdvanceJourneysRequestV1['journeys'][number];
type Recorded = AdvanceJourneysRequestV1['recorded'][string];

const returns: Definition = {
  id: 'returns',
  title: 'Process a return',
  description: 'Take an item back for a refund or an exchange',
  steps: [
    {
      id: 'ask_order',
      name: 'Order number',
      kind: 'chat',
      instruction: 'Ask for the order number',
      required_context: ['order_number'],
      guidelines: [],
    },
    { id: 'decide', name: 'Refund or exchange', kind: 'fork', instruction: 'Ask refund or exchange', required_context: [], guidelines: [] },
    { id: 'refund', name: 'Refund', kind: 'tool', tool: 'issue_refund', required_context: [], guidelines: [] },
    { id: 'exchange', name: 'Exchange', kind: 'chat', instruction: 'Offer an exchange', required_context: [], guidelines: [] },
    { id: 'confirm', name: 'Confirmation', kind: 'final', instruction: 'Confirm', required_context: [], guidelines: [] },
  ],
  transitions: [
    { from: 'ask_order', to: 'decide', condition: 'the customer gave their order number', priority: 0 },
    { from: 'decide', to: 'refund', condition: 'the customer wants their money back', priority: 10 },
    { from: 'decide', to: 'exchange', condition: 'the customer wants another item', priority: 0 },
    { from: 'refund', to: 'confirm', priority: 0 },
    { from: 'exchange', to: 'confirm', priority: 0 },
  ],
  initial_step: 'ask_order',
  timeouts: { abandon_after_secs: 600, expire_after_secs: 3600 },
};

const t0 = 1_800_000_000_000;

describe('journey engine over the bus (in-process bus)', () => {
  let bus: InProcessMessageBus;
  let app: INestApplication;

  const startEngine = async (): Promise<INestApplication> => {
    @Module({ imports: [JourneyEngineModule] })
    class Host {}
    const engine = await NestFactory.create(Host, { logger: false });
    engine.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName: 'journey-engine' }) });
    await engine.startAllMicroservices();
    await engine.init();
    return engine;
  };

  beforeEach(async () => {
    bus = new InProcessMessageBus();
    app = await startEngine();
  });

  afterEach(async () => {
    await app.close();
    await bus.close();
  });

  /** The gateway's side: keeps the recorded events (as the session stream would) and sends each turn. */
  const session = () => {
    const recorded: Record<string, Recorded> = {};
    return {
      recorded,
      async turn(input: Partial<AdvanceJourneysRequestV1> & { now: number }): Promise<AdvanceJourneysReplyV1> {
        const reply = await bus.request<AdvanceJourneysReplyV1>(JOURNEYS_ADVANCE_SUBJECT, {
          session_id: 's1',
          correlation_id: `c-${input.now}`,
          journeys: [returns],
          recorded,
          matched: [],
          evaluated: {},
          context: {},
          ...input,
        } satisfies AdvanceJourneysRequestV1);
        for (const { journey_id, event } of reply.events) (recorded[journey_id] ??= []).push(event);
        return reply;
      },
    };
  };

  it('walks a return: activation, a step whose required context arrives, a fork, a tool step, completion', async () => {
    const s = session();
    const first = await s.turn({ now: t0, matched: ['returns'] });
    expect(first.events.map((e) => e.event.type)).toEqual(['journey_activated']);
    expect(first.active_journey).toEqual({ journey_id: 'returns', step_id: 'ask_order' });
    expect(first.pending_conditions).toEqual(['the customer gave their order number']);
    expect(first.effects).toEqual([
      {
        kind: 'Schedule',
        timer: 'abandon',
        session_id: 's1',
        journey_id: 'returns',
        job_id: 'journey-abandon-s1-returns-1',
        delay_ms: 600_000,
      },
    ]);

    // The condition holds but the order number is not known yet: the journey stays.
    expect((await s.turn({ now: t0 + 1_000, evaluated: { 'the customer gave their order number': true } })).events).toEqual([]);
    const second = await s.turn({
      now: t0 + 2_000,
      evaluated: { 'the customer gave their order number': true },
      context: { order_number: 'A-1' },
    });
    expect(second.active_journey).toEqual({ journey_id: 'returns', step_id: 'decide' });
    expect(second.pending_conditions).toEqual(['the customer wants their money back', 'the customer wants another item']);

    const third = await s.turn({
      now: t0 + 3_000,
      evaluated: { 'the customer wants their money back': true, 'the customer wants another item': true },
      context: { order_number: 'A-1' },
    });
    expect(third.tool_step).toEqual({ journey_id: 'returns', step_id: 'refund', tool: 'issue_refund' });

    const done = await s.turn({ now: t0 + 4_000, tool_result: { journey_id: 'returns', step_id: 'refund', result: { refund_id: 'R-1' } } });
    expect(done.events.map((e) => e.event.type)).toEqual(['journey_transitioned', 'journey_completed']);
    expect(done.states).toEqual([
      { journey_id: 'returns', status: 'Completed', step_id: 'confirm', step_history: ['ask_order', 'decide', 'refund', 'confirm'] },
    ]);
    expect(done.active_journey).toBeUndefined();
  });

  it('a restarted engine continues from the recorded step (state lives in the recorded events, not the engine)', async () => {
    const s = session();
    await s.turn({ now: t0, matched: ['returns'] });
    await s.turn({ now: t0 + 1_000, evaluated: { 'the customer gave their order number': true }, context: { order_number: 'A-1' } });
    await app.close();
    app = await startEngine();
    const next = await s.turn({ now: t0 + 2_000, evaluated: { 'the customer wants another item': true } });
    expect(next.states[0]).toMatchObject({ status: 'Active', step_id: 'exchange', step_history: ['ask_order', 'decide', 'exchange'] });
  });

  it('backtracks when an answer changes a past decision, then takes the other branch', async () => {
    const s = session();
    await s.turn({ now: t0, matched: ['returns'] });
    await s.turn({ now: t0 + 1, evaluated: { 'the customer gave their order number': true }, context: { order_number: 'A-1' } });
    await s.turn({ now: t0 + 2, evaluated: { 'the customer wants another item': true } });
    const back = await s.turn({
      now: t0 + 3,
      backtrack: { journey_id: 'returns', to: 'decide' },
      evaluated: { 'the customer wants their money back': true },
    });
    expect(back.events.map((e) => [e.event.type, e.event.data['to'], e.event.data['cause']])).toEqual([
      ['journey_transitioned', 'decide', 'backtrack'],
      ['journey_transitioned', 'refund', 'condition'],
    ]);
    expect(back.tool_step).toMatchObject({ step_id: 'refund' });
  });

  it('abandons on the timer, resumes when the customer answers the step, expires if they never do', async () => {
    const s = session();
    await s.turn({ now: t0, matched: ['returns'] });
    expect((await s.turn({ now: t0 + 599_999, timer: { journey_id: 'returns', kind: 'abandon' }, last_activity_at: t0 })).events).toEqual(
      [],
    );
    const abandoned = await s.turn({ now: t0 + 600_000, timer: { journey_id: 'returns', kind: 'abandon' }, last_activity_at: t0 });
    expect(abandoned.states[0]).toMatchObject({ status: 'Abandoned', step_id: 'ask_order' });
    expect(abandoned.effects).toEqual([expect.objectContaining({ kind: 'Schedule', timer: 'expire', delay_ms: 3_600_000 })]);

    const resumed = await s.turn({
      now: t0 + 700_000,
      evaluated: { 'the customer gave their order number': true },
      context: { order_number: 'A-1' },
    });
    expect(resumed.events.map((e) => e.event.type)).toEqual(['journey_activated', 'journey_transitioned']);
    expect(resumed.events[0]!.event.data['resumed']).toBe(true);
    expect(resumed.active_journey).toEqual({ journey_id: 'returns', step_id: 'decide' });

    const other = session();
    await other.turn({ now: t0, matched: ['returns'] });
    await other.turn({ now: t0 + 600_000, timer: { journey_id: 'returns', kind: 'abandon' } });
    const expired = await other.turn({ now: t0 + 4_200_000, timer: { journey_id: 'returns', kind: 'expire' } });
    expect(expired.events.map((e) => e.event.data['reason'])).toEqual(['expired']);
    expect(expired.states[0]!.status).toBe('Expired');
  });

  it('a stale abandon timer (the customer was active since) re-arms the timer at the due time the activity set', async () => {
    const s = session();
    await s.turn({ now: t0, matched: ['returns'] });
    // The customer talked at t0 + 300 s without moving the journey; the move's timer fires at t0 + 600 s.
    const stale = await s.turn({ now: t0 + 600_000, timer: { journey_id: 'returns', kind: 'abandon' }, last_activity_at: t0 + 300_000 });
    expect(stale.events).toEqual([]);
    expect(stale.effects).toEqual([
      {
        kind: 'Schedule',
        timer: 'abandon',
        session_id: 's1',
        journey_id: 'returns',
        job_id: 'journey-abandon-s1-returns-1-at-1800000900000',
        delay_ms: 300_000,
      },
    ]);
    // The re-armed timer abandons the journey when it fires, if the customer stayed away.
    const abandoned = await s.turn({
      now: t0 + 900_000,
      timer: { journey_id: 'returns', kind: 'abandon' },
      last_activity_at: t0 + 300_000,
    });
    expect(abandoned.states[0]).toMatchObject({ status: 'Abandoned' });
    // A fired timer on a journey no longer active re-arms nothing.
    expect(
      (await s.turn({ now: t0 + 900_001, timer: { journey_id: 'returns', kind: 'abandon' }, last_activity_at: t0 + 300_000 })).effects,
    ).toEqual([]);
  });

  it('two journeys whose conditions overlap both activate; the first listed (highest priority) scopes matching, both advance', async () => {
    const booking: Definition = {
      id: 'booking',
      title: 'Book a flight',
      description: 'Collect the route and book',
      steps: [
        { id: 'route', name: 'Route', kind: 'chat', instruction: 'Ask for the route', required_context: [], guidelines: [] },
        { id: 'booked', name: 'Booked', kind: 'final', instruction: 'Confirm', required_context: [], guidelines: [] },
      ],
      transitions: [{ from: 'route', to: 'booked', condition: 'the customer gave their route', priority: 0 }],
      initial_step: 'route',
      timeouts: { abandon_after_secs: 600, expire_after_secs: 3600 },
    };
    const s = session();
    const both = await s.turn({ now: t0, journeys: [booking, returns], matched: ['returns', 'booking'] });
    expect(both.states.map((st) => [st.journey_id, st.status, st.step_id])).toEqual([
      ['booking', 'Active', 'route'],
      ['returns', 'Active', 'ask_order'],
    ]);
    expect(both.active_journey).toEqual({ journey_id: 'booking', step_id: 'route' });
    expect(both.pending_conditions).toEqual(['the customer gave their route', 'the customer gave their order number']);
    const next = await s.turn({ now: t0 + 1, journeys: [booking, returns], evaluated: { 'the customer gave their route': true } });
    expect(next.states.map((st) => st.status)).toEqual(['Completed', 'Active']);
    expect(next.active_journey).toEqual({ journey_id: 'returns', step_id: 'ask_order' });
  });

  it('reports a refused command per journey, and refuses a request that breaks the contract naming the field', async () => {
    const s = session();
    await s.turn({ now: t0, matched: ['returns'] });
    const refused = await s.turn({ now: t0 + 1, backtrack: { journey_id: 'returns', to: 'exchange' } });
    expect(refused.rejected).toEqual([expect.objectContaining({ journey_id: 'returns', code: 'JOURNEY.NOT_VISITED' })]);
    const error = await bus.request(JOURNEYS_ADVANCE_SUBJECT, { session_id: 's1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteHandlerError);
    expect((error as RemoteHandlerError).remoteCode).toBe('CONTRACT.INVALID');
    expect((error as Error).message).toContain('/correlation_id');
  });
});
