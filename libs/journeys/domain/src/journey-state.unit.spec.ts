import { deciderSpec } from '@tenet/testing';
import {
  decide,
  effectsOf,
  evolve,
  foldJourney,
  initialJourneyState,
  pendingConditions,
  pendingJourneyTimer,
  resumeConditions,
  type JourneyCommand,
  type JourneyEvent,
  type JourneyState,
} from './index.js';
import { returns } from './returns-journey.fixture.js';

const spec = deciderSpec<JourneyCommand, JourneyEvent, JourneyState>({ decide, evolve, initialState: initialJourneyState });
const journey = returns();
const t0 = 1_800_000_000_000;
const ctx = { order_number: 'A-1' };

const activated = (at = t0, step = 'ask_order'): JourneyEvent => ({
  type: 'journey_activated',
  data: { journeyId: 'returns', sessionId: 's1', step, resumed: false, at },
});
const moved = (
  from: string,
  to: string,
  at: number,
  extra: { condition?: string; cause?: 'condition' | 'branch' | 'tool' | 'backtrack'; context?: Record<string, unknown> } = {},
): JourneyEvent => ({
  type: 'journey_transitioned',
  data: {
    journeyId: 'returns',
    from,
    to,
    cause: extra.cause ?? 'condition',
    ...(extra.condition ? { condition: extra.condition } : {}),
    context: extra.context ?? ctx,
    at,
  },
});
const gaveOrder = moved('ask_order', 'ask_reason', t0 + 1_000, { condition: 'the customer gave their order number' });
const atFork = moved('ask_reason', 'decide', t0 + 2_000);
const toRefund = moved('decide', 'refund', t0 + 3_000, { condition: 'the customer wants their money back' });
const toExchange = moved('decide', 'exchange', t0 + 3_000, { condition: 'the customer wants a different item' });

describe('journey state decider', () => {
  describe('Activate', () => {
    it('starts at the initial step', () => {
      spec.given([]).when({ type: 'Activate', journey, sessionId: 's1', now: t0 }).then([activated()]);
      expect(foldJourney([activated()])).toMatchObject({
        status: 'Active',
        currentStep: 'ask_order',
        history: [{ step_id: 'ask_order', entered_at: t0 }],
      });
    });

    it('is a no-op while already active (the matcher may match the journey again)', () => {
      spec
        .given([activated()])
        .when({ type: 'Activate', journey, sessionId: 's1', now: t0 + 5 })
        .thenNothingHappens();
    });

    it('starts a description-only journey without a step', () => {
      const plain = { ...journey, steps: [], transitions: [], initial_step: undefined };
      spec
        .given([])
        .when({ type: 'Activate', journey: plain, sessionId: 's1', now: t0 })
        .then([{ type: 'journey_activated', data: { journeyId: 'returns', sessionId: 's1', resumed: false, at: t0 } }]);
    });

    it('refuses a state that belongs to another journey', () => {
      spec
        .given([activated()])
        .when({ type: 'Activate', journey: { ...journey, id: 'other' }, sessionId: 's1', now: t0 })
        .thenThrows('JOURNEY.WRONG_JOURNEY');
    });
  });

  describe('Advance: transitions by priority, then condition', () => {
    it('moves when the outgoing condition was evaluated true and required context is known', () => {
      spec
        .given([activated()])
        .when({ type: 'Advance', journey, evaluated: { 'the customer gave their order number': true }, context: ctx, now: t0 + 1_000 })
        .then([gaveOrder]);
    });

    it('stays when the condition is false or was not evaluated', () => {
      spec
        .given([activated()])
        .when({ type: 'Advance', journey, evaluated: { 'the customer gave their order number': false }, context: ctx, now: t0 + 1_000 })
        .thenNothingHappens();
      spec
        .given([activated()])
        .when({ type: 'Advance', journey, evaluated: {}, context: ctx, now: t0 + 1_000 })
        .thenNothingHappens();
    });

    it('stays while the step’s required context is missing, even if the condition holds', () => {
      spec
        .given([activated()])
        .when({ type: 'Advance', journey, evaluated: { 'the customer gave their order number': true }, context: {}, now: t0 + 1_000 })
        .thenNothingHappens();
    });

    it('takes an unconditional transition (the step’s fallback)', () => {
      spec
        .given([activated(), gaveOrder])
        .when({ type: 'Advance', journey, evaluated: {}, now: t0 + 2_000 })
        .then([atFork]);
    });

    it('prefers the higher priority when several conditions hold, and a conditional over the fallback at equal priority', () => {
      spec
        .given([activated(), gaveOrder, atFork])
        .when({
          type: 'Advance',
          journey,
          evaluated: { 'the customer wants their money back': true, 'the customer wants a different item': true },
          now: t0 + 3_000,
        })
        .then([toRefund]);
      const withFallback = returns();
      withFallback.transitions.push({ from: 'ask_reason', to: 'exchange', condition: 'the item is damaged', priority: 0 });
      expect(
        decide(
          { type: 'Advance', journey: withFallback, evaluated: { 'the item is damaged': true }, now: t0 + 2_000 },
          foldJourney([activated(), gaveOrder]),
        ),
      ).toEqual([moved('ask_reason', 'exchange', t0 + 2_000, { condition: 'the item is damaged' })]);
    });

    it('tells the matcher which conditions to evaluate: the current step’s, in the order they are tried', () => {
      expect(pendingConditions(journey, foldJourney([activated(), gaveOrder, atFork]))).toEqual([
        'the customer wants their money back',
        'the customer wants a different item',
      ]);
      expect(pendingConditions(journey, initialJourneyState())).toEqual([]);
    });

    it('refuses to advance past a tool step (the tool must complete) or an inactive journey', () => {
      spec
        .given([activated(), gaveOrder, atFork, toRefund])
        .when({ type: 'Advance', journey, evaluated: {}, now: t0 })
        .thenThrows('JOURNEY.AT_TOOL_STEP');
      spec.given([]).when({ type: 'Advance', journey, evaluated: {}, now: t0 }).thenThrows('JOURNEY.NOT_ACTIVE');
    });

    it('reports a recorded step that the edited definition no longer has', () => {
      const edited = { ...journey, steps: journey.steps.filter((s) => s.id !== 'ask_order') };
      spec
        .given([activated()])
        .when({ type: 'Advance', journey: edited, evaluated: {}, now: t0 })
        .thenThrows('JOURNEY.UNKNOWN_STEP', /no step ask_order/);
    });
  });

  describe('fork', () => {
    it('ChooseBranch takes the named branch', () => {
      spec
        .given([activated(), gaveOrder, atFork])
        .when({ type: 'ChooseBranch', journey, to: 'exchange', now: t0 + 3_000 })
        .then([{ ...toExchange, data: { ...toExchange.data, cause: 'branch' } } as JourneyEvent]);
    });

    it('refuses a branch the fork does not have, and a branch choice away from a fork', () => {
      spec
        .given([activated(), gaveOrder, atFork])
        .when({ type: 'ChooseBranch', journey, to: 'confirm', now: t0 })
        .thenThrows('JOURNEY.INVALID_BRANCH', /no branch to confirm/);
      spec.given([activated()]).when({ type: 'ChooseBranch', journey, to: 'ask_reason', now: t0 }).thenThrows('JOURNEY.NOT_A_FORK');
    });
  });

  describe('tool step and completion', () => {
    it('CompleteToolStep records the result and follows the transition; a final step completes the journey', () => {
      const result = { refund_id: 'R-9' };
      spec
        .given([activated(), gaveOrder, atFork, toRefund])
        .when({ type: 'CompleteToolStep', journey, result, now: t0 + 4_000 })
        .then([
          moved('refund', 'confirm', t0 + 4_000, { cause: 'tool', context: { ...ctx, refund: result } }),
          { type: 'journey_completed', data: { journeyId: 'returns', step: 'confirm', at: t0 + 4_000 } },
        ]);
    });

    it('refuses CompleteToolStep away from a tool step', () => {
      spec.given([activated()]).when({ type: 'CompleteToolStep', journey, result: {}, now: t0 }).thenThrows('JOURNEY.NOT_A_TOOL_STEP');
    });

    it('a completed journey has every step exited and takes no more advances; Activate starts it over', () => {
      const events = [
        activated(),
        gaveOrder,
        atFork,
        toExchange,
        moved('exchange', 'confirm', t0 + 4_000),
        { type: 'journey_completed', data: { journeyId: 'returns', step: 'confirm', at: t0 + 4_000 } } as JourneyEvent,
      ];
      const state = foldJourney(events);
      expect(state).toMatchObject({ status: 'Completed', currentStep: 'confirm' });
      expect(state.status !== 'NotStarted' && state.history.every((h) => h.exited_at !== undefined)).toBe(true);
      spec
        .given(events)
        .when({ type: 'Advance', journey, evaluated: {}, now: t0 + 5_000 })
        .thenThrows('JOURNEY.NOT_ACTIVE');
      spec
        .given(events)
        .when({ type: 'Activate', journey, sessionId: 's1', now: t0 + 9_000 })
        .then([activated(t0 + 9_000)]);
      expect(foldJourney([activated(t0 + 9_000)], state)).toMatchObject({
        status: 'Active',
        currentStep: 'ask_order',
        context: {},
        history: [{ step_id: 'ask_order' }],
      });
    });

    it('Complete ends a description-only journey, and is refused for a stepped journey not at a final step', () => {
      const plain = { ...journey, steps: [], transitions: [], initial_step: undefined };
      const start: JourneyEvent = { type: 'journey_activated', data: { journeyId: 'returns', sessionId: 's1', resumed: false, at: t0 } };
      spec
        .given([start])
        .when({ type: 'Complete', journey: plain, now: t0 + 1 })
        .then([{ type: 'journey_completed', data: { journeyId: 'returns', at: t0 + 1 } }]);
      spec
        .given([activated()])
        .when({ type: 'Complete', journey, now: t0 + 1 })
        .thenThrows('JOURNEY.NOT_AT_FINAL_STEP');
    });
  });

  describe('Backtrack: an answer changes a past decision', () => {
    it('goes back to a visited step and forgets the steps after it', () => {
      const past = [activated(), gaveOrder, atFork, toExchange];
      spec
        .given(past)
        .when({ type: 'Backtrack', journey, to: 'decide', now: t0 + 5_000 })
        .then([moved('exchange', 'decide', t0 + 5_000, { cause: 'backtrack' })]);
      const state = foldJourney([...past, moved('exchange', 'decide', t0 + 5_000, { cause: 'backtrack' })]);
      expect(state).toMatchObject({ status: 'Active', currentStep: 'decide' });
      expect(state.status !== 'NotStarted' && state.history.map((h) => h.step_id)).toEqual(['ask_order', 'ask_reason', 'decide']);
      // …and the new answer takes the other branch.
      expect(
        decide({ type: 'Advance', journey, evaluated: { 'the customer wants their money back': true }, now: t0 + 6_000 }, state),
      ).toEqual([moved('decide', 'refund', t0 + 6_000, { condition: 'the customer wants their money back' })]);
    });

    it('refuses a step that was not visited, or the current one', () => {
      spec.given([activated(), gaveOrder]).when({ type: 'Backtrack', journey, to: 'exchange', now: t0 }).thenThrows('JOURNEY.NOT_VISITED');
      spec
        .given([activated(), gaveOrder])
        .when({ type: 'Backtrack', journey, to: 'ask_reason', now: t0 })
        .thenThrows('JOURNEY.NOT_VISITED');
    });
  });

  describe('abandonment and expiry (timers)', () => {
    const abandonAfter = journey.timeouts.abandon_after_secs * 1000;
    const expireAfter = journey.timeouts.expire_after_secs * 1000;
    const abandoned: JourneyEvent = {
      type: 'journey_abandoned',
      data: { journeyId: 'returns', step: 'ask_reason', reason: 'inactive', at: t0 + 1_000 + abandonAfter },
    };

    it('abandons an active journey once the customer has been away long enough, not before', () => {
      spec
        .given([activated(), gaveOrder])
        .when({ type: 'Abandon', journey, lastActivityAt: t0 + 1_000, now: t0 + 1_000 + abandonAfter - 1 })
        .thenNothingHappens();
      spec
        .given([activated(), gaveOrder])
        .when({ type: 'Abandon', journey, lastActivityAt: t0 + 1_000, now: t0 + 1_000 + abandonAfter })
        .then([abandoned]);
    });

    it('ignores a timer when the customer was active at the same step since (stale timer)', () => {
      spec
        .given([activated(), gaveOrder])
        .when({ type: 'Abandon', journey, lastActivityAt: t0 + 60_000, now: t0 + 1_000 + abandonAfter })
        .thenNothingHappens();
    });

    it('a returning customer resumes at the recorded step', () => {
      const resumed: JourneyEvent = {
        type: 'journey_activated',
        data: { journeyId: 'returns', sessionId: 's1', step: 'ask_reason', resumed: true, at: t0 + 9_999_999 },
      };
      spec
        .given([activated(), gaveOrder, abandoned])
        .when({ type: 'Activate', journey, sessionId: 's1', now: t0 + 9_999_999 })
        .then([resumed]);
      expect(foldJourney([activated(), gaveOrder, abandoned, resumed])).toMatchObject({
        status: 'Active',
        currentStep: 'ask_reason',
        context: ctx,
      });
    });

    it('asks for the abandoned step’s conditions as resume conditions, and none once it is active again or expired', () => {
      const atDecide = [activated(), gaveOrder, atFork];
      const leftAtDecide: JourneyEvent = {
        type: 'journey_abandoned',
        data: { journeyId: 'returns', step: 'decide', reason: 'inactive', at: t0 + 2_000 + abandonAfter },
      };
      const away = foldJourney([...atDecide, leftAtDecide]);
      expect(resumeConditions(journey, away)).toEqual(['the customer wants their money back', 'the customer wants a different item']);
      expect(pendingConditions(journey, away)).toEqual([]);
      expect(resumeConditions(journey, foldJourney(atDecide))).toEqual([]);
      expect(
        resumeConditions(
          journey,
          foldJourney([...atDecide, leftAtDecide, { ...leftAtDecide, data: { ...leftAtDecide.data, reason: 'expired' } }]),
        ),
      ).toEqual([]);
    });

    it('an abandoned journey expires after expire_after_secs; then a returning customer starts over', () => {
      const expiredAt = t0 + 1_000 + abandonAfter + expireAfter;
      spec
        .given([activated(), gaveOrder, abandoned])
        .when({ type: 'Expire', journey, now: expiredAt - 1 })
        .thenNothingHappens();
      const expired: JourneyEvent = {
        type: 'journey_abandoned',
        data: { journeyId: 'returns', step: 'ask_reason', reason: 'expired', at: expiredAt },
      };
      spec.given([activated(), gaveOrder, abandoned]).when({ type: 'Expire', journey, now: expiredAt }).then([expired]);
      expect(foldJourney([activated(), gaveOrder, abandoned, expired]).status).toBe('Expired');
      spec
        .given([activated(), gaveOrder, abandoned, expired])
        .when({ type: 'Activate', journey, sessionId: 's1', now: expiredAt + 1 })
        .then([activated(expiredAt + 1)]);
    });

    it('names the timer a journey should have pending (start-up rebuild, stale timers): the move\u2019s own id when due as armed', () => {
      const active = foldJourney([activated(), gaveOrder]);
      expect(pendingJourneyTimer(active, journey, t0 + 1_000)).toEqual({
        kind: 'Schedule',
        timer: 'abandon',
        sessionId: 's1',
        journeyId: 'returns',
        jobId: 'journey-abandon-s1-returns-2',
        delayMs: abandonAfter,
      });
      // Activity after the move pushes the due time out, under another id (the move's may be firing right now).
      expect(pendingJourneyTimer(active, journey, t0 + 1_000, t0 + 5_000)).toMatchObject({
        jobId: `journey-abandon-s1-returns-2-at-${t0 + 5_000 + abandonAfter}`,
        delayMs: abandonAfter + 4_000,
      });
      // Overdue: fires at once.
      expect(pendingJourneyTimer(active, journey, t0 + 1_000 + abandonAfter + 99)).toMatchObject({ delayMs: 0 });
      expect(pendingJourneyTimer(foldJourney([activated(), gaveOrder, abandoned]), journey, t0 + 1_000 + abandonAfter)).toEqual({
        kind: 'Schedule',
        timer: 'expire',
        sessionId: 's1',
        journeyId: 'returns',
        jobId: 'journey-expire-s1-returns-2',
        delayMs: expireAfter,
      });
      expect(pendingJourneyTimer(initialJourneyState(), journey, t0)).toBeUndefined();
    });

    it('timers on a journey that is not in the right state do nothing', () => {
      spec.given([]).when({ type: 'Abandon', journey, lastActivityAt: 0, now: t0 }).thenNothingHappens();
      spec
        .given([activated()])
        .when({ type: 'Expire', journey, now: t0 + 10 * expireAfter })
        .thenNothingHappens();
    });

    it('effects: each move re-arms the abandon timer with its own id, abandonment arms expiry, completion cancels', () => {
      const base = { sessionId: 's1', journeyId: 'returns' };
      expect(effectsOf(initialJourneyState(), [activated()], journey)).toEqual([
        { kind: 'Schedule', timer: 'abandon', ...base, jobId: 'journey-abandon-s1-returns-1', delayMs: abandonAfter },
      ]);
      expect(effectsOf(foldJourney([activated()]), [gaveOrder], journey)).toEqual([
        { kind: 'Cancel', timer: 'abandon', ...base, jobId: 'journey-abandon-s1-returns-1' },
        { kind: 'Schedule', timer: 'abandon', ...base, jobId: 'journey-abandon-s1-returns-2', delayMs: abandonAfter },
      ]);
      expect(effectsOf(foldJourney([activated(), gaveOrder]), [abandoned], journey)).toEqual([
        { kind: 'Schedule', timer: 'expire', ...base, jobId: 'journey-expire-s1-returns-2', delayMs: expireAfter },
      ]);
      const resumed: JourneyEvent = {
        type: 'journey_activated',
        data: { journeyId: 'returns', sessionId: 's1', step: 'ask_reason', resumed: true, at: t0 + 1 },
      };
      expect(effectsOf(foldJourney([activated(), gaveOrder, abandoned]), [resumed], journey)).toEqual([
        { kind: 'Cancel', timer: 'expire', ...base, jobId: 'journey-expire-s1-returns-2' },
        { kind: 'Schedule', timer: 'abandon', ...base, jobId: 'journey-abandon-s1-returns-3', delayMs: abandonAfter },
      ]);
      const toConfirm = moved('exchange', 'confirm', t0 + 4_000);
      const completed: JourneyEvent = { type: 'journey_completed', data: { journeyId: 'returns', step: 'confirm', at: t0 + 4_000 } };
      expect(effectsOf(foldJourney([activated(), gaveOrder, atFork, toExchange]), [toConfirm, completed], journey).at(-1)).toEqual({
        kind: 'Cancel',
        timer: 'abandon',
        ...base,
        jobId: 'journey-abandon-s1-returns-5',
      });
    });
  });

  describe('FailToolStep: what a failed tool step leads to', () => {
    const atRefund = [activated(), gaveOrder, atFork, toRefund];
    const reason = { code: 'TOOLS.TIMEOUT', message: 'the tool issue_refund did not answer in time' };
    const failed = (outcome: 'end' | 'handoff'): JourneyEvent => ({
      type: 'journey_failed',
      data: { journeyId: 'returns', step: 'refund', reason, outcome, at: t0 + 4_000 },
    });

    it('ends the journey by default: Failed, with failed_at and the reason; the step is exited and the abandon timer cancelled', () => {
      spec
        .given(atRefund)
        .when({ type: 'FailToolStep', journey, reason, now: t0 + 4_000 })
        .then([failed('end')]);
      const state = foldJourney([...atRefund, failed('end')]);
      expect(state).toMatchObject({
        status: 'Failed',
        currentStep: 'refund',
        failedAt: t0 + 4_000,
        failure: { ...reason, step: 'refund' },
      });
      expect(state.status !== 'NotStarted' && state.history.at(-1)).toEqual({
        step_id: 'refund',
        entered_at: t0 + 3_000,
        exited_at: t0 + 4_000,
      });
      expect(effectsOf(foldJourney(atRefund), [failed('end')], journey)).toEqual([
        expect.objectContaining({ kind: 'Cancel', timer: 'abandon' }),
      ]);
      expect(pendingConditions(journey, state)).toEqual([]);
    });

    it('hands off when the journey says so (still Failed)', () => {
      spec
        .given(atRefund)
        .when({ type: 'FailToolStep', journey: { ...journey, on_failure: { action: 'handoff' } }, reason, now: t0 + 4_000 })
        .then([failed('handoff')]);
    });

    it('goes on at the step the journey names', () => {
      const recovering = { ...journey, on_failure: { action: 'step' as const, step: 'exchange' } };
      spec
        .given(atRefund)
        .when({ type: 'FailToolStep', journey: recovering, reason, now: t0 + 4_000 })
        .then([moved('refund', 'exchange', t0 + 4_000, { cause: 'failure' as never })]);
    });

    it('refuses when the journey is not at a tool step', () => {
      spec
        .given([activated()])
        .when({ type: 'FailToolStep', journey, reason, now: t0 + 1_000 })
        .thenThrows('JOURNEY.NOT_A_TOOL_STEP');
    });

    it('a failed journey starts over when it matches again', () => {
      spec
        .given([...atRefund, failed('end')])
        .when({ type: 'Activate', journey, sessionId: 's1', now: t0 + 9_000 })
        .then([activated(t0 + 9_000)]);
    });
  });
});
