import { Injectable } from '@nestjs/common';
import type { AdvanceJourneysReplyV1, AdvanceJourneysRequestV1 } from '@tenet/contracts';
import {
  decide,
  effectsOf,
  evolve,
  foldJourney,
  JourneyDomainError,
  pendingConditions,
  pendingJourneyTimer,
  resumeConditions,
  type JourneyCommand,
  type JourneyDefinition,
  type JourneyEvent,
  type JourneyState,
  type JourneyStep,
} from '@tenet/journeys-domain';

type Reply = AdvanceJourneysReplyV1;
type Started = Exclude<JourneyState, { status: 'NotStarted' }>;

/**
 * One turn (or one timer) of every journey of a session: folds each journey's recorded events, decides the
 * commands this request implies, and answers with the new events, states, effects and the journey the matcher
 * should scope to. Stateless — everything comes in the request — so any replica answers and a restarted engine
 * continues from the recorded step. Journeys are independent: one journey's refusal does not stop the others.
 *
 * Per journey, in order: a timer (abandon/expire) if this request is one; else activation when its conditions
 * matched (or resumption of an abandoned one the customer came back to); a requested backtrack; a tool step's
 * result or failure (the journey's `on_failure`: end, handoff, or a step); then Advance with the matcher's evaluated conditions. A fork advances like any step (its branches'
 * conditions are evaluated by the matcher); ChooseBranch stays available in the domain for explicit choices.
 */
@Injectable()
export class JourneyEngine {
  advance(request: AdvanceJourneysRequestV1): Reply {
    const reply: Reply = { events: [], states: [], pending_conditions: [], effects: [], rejected: [] };
    const definitions = request.journeys as JourneyDefinition[];
    const active: { journey: JourneyDefinition; state: Started }[] = [];
    for (const journey of definitions) {
      const before = foldJourney((request.recorded[journey.id] ?? []) as JourneyEvent[]);
      let state = before;
      const produced: JourneyEvent[] = [];
      const run = (command: JourneyCommand): void => {
        try {
          const events = decide(command, state);
          produced.push(...events);
          state = events.reduce(evolve, state);
        } catch (error) {
          if (!(error instanceof JourneyDomainError)) throw error;
          reply.rejected.push({ journey_id: journey.id, code: error.code, message: error.message });
        }
      };
      for (const command of this.commandsFor(journey, request, () => state)) run(command);
      const effects = effectsOf(before, produced, journey);
      // A stale abandon timer (the customer was active since it was armed) abandons nothing, but the journey must
      // still be abandoned if the customer goes quiet now: re-arm it at the due time the activity moved it to.
      if (request.timer?.journey_id === journey.id && request.timer.kind === 'abandon' && produced.length === 0) {
        const rearm = pendingJourneyTimer(state, journey, request.now, request.last_activity_at);
        if (rearm?.kind === 'Schedule' && rearm.timer === 'abandon')
          effects.push({
            ...rearm,
            jobId: rearm.jobId.includes('-at-') ? rearm.jobId : `${rearm.jobId}-at-${request.now + rearm.delayMs}`,
          });
      }
      reply.events.push(
        ...produced.map((event) => ({ journey_id: journey.id, event: { type: event.type, data: event.data as Record<string, unknown> } })),
      );
      reply.effects.push(
        ...effects.map((e) => ({
          kind: e.kind,
          timer: e.timer,
          session_id: e.sessionId,
          journey_id: e.journeyId,
          job_id: e.jobId,
          ...(e.kind === 'Schedule' ? { delay_ms: e.delayMs } : {}),
        })),
      );
      if (state.status === 'NotStarted') continue;
      reply.states.push({
        journey_id: journey.id,
        status: state.status,
        ...(state.currentStep !== undefined ? { step_id: state.currentStep } : {}),
        step_history: state.history.map((h) => h.step_id),
        ...(state.failedAt !== undefined ? { failed_at: new Date(state.failedAt).toISOString() } : {}),
        ...(state.failure ? { failure: state.failure } : {}),
      });
      if (state.status === 'Active') active.push({ journey, state });
    }
    // The request lists journeys highest priority first (the gateway's order); the first active one scopes matching.
    const lead = active[0];
    if (lead) {
      reply.active_journey = {
        journey_id: lead.journey.id,
        ...(lead.state.currentStep !== undefined ? { step_id: lead.state.currentStep } : {}),
      };
      const step = lead.journey.steps.find((s) => s.id === lead.state.currentStep);
      if (step?.kind === 'tool' && step.tool !== undefined)
        reply.tool_step = { journey_id: lead.journey.id, step_id: step.id, tool: step.tool };
    }
    reply.pending_conditions = [...new Set(active.flatMap(({ journey, state }) => pendingConditions(journey, state)))];
    return reply;
  }

  /** The commands a request implies for one journey; `current` reads the state as earlier commands left it. */
  private *commandsFor(
    journey: JourneyDefinition,
    request: AdvanceJourneysRequestV1,
    current: () => JourneyState,
  ): Generator<JourneyCommand> {
    const now = request.now;
    if (request.timer) {
      if (request.timer.journey_id !== journey.id) return;
      if (request.timer.kind === 'abandon') yield { type: 'Abandon', journey, lastActivityAt: request.last_activity_at ?? 0, now };
      else yield { type: 'Expire', journey, now };
      return;
    }
    const status = current().status;
    const matched = request.matched.includes(journey.id);
    // A customer who comes back to an abandoned journey resumes it by answering its step (or matching it again).
    const resumes = status === 'Abandoned' && resumeConditions(journey, current()).some((c) => request.evaluated[c] === true);
    if (matched || resumes) yield { type: 'Activate', journey, sessionId: request.session_id, now };
    // A journey that starts (over) this turn waits at its first step for the customer's answer: the conditions
    // this turn evaluated belong to other steps, so no transition may be taken on them (nor a fallback one).
    if (status !== 'Active' && status !== 'Abandoned') return;
    if (current().status !== 'Active') return;
    if (request.backtrack?.journey_id === journey.id) yield { type: 'Backtrack', journey, to: request.backtrack.to, now };
    const toolResult = request.tool_result?.journey_id === journey.id ? request.tool_result : undefined;
    const atStep = (): JourneyStep | undefined => journey.steps.find((s) => s.id === (current() as Started).currentStep);
    if (toolResult && atStep()?.id === toolResult.step_id && atStep()?.kind === 'tool') {
      yield { type: 'CompleteToolStep', journey, result: toolResult.result, evaluated: request.evaluated, now };
      return;
    }
    const toolFailure = request.tool_failure?.journey_id === journey.id ? request.tool_failure : undefined;
    if (toolFailure && atStep()?.id === toolFailure.step_id && atStep()?.kind === 'tool') {
      yield { type: 'FailToolStep', journey, reason: { code: toolFailure.code, message: toolFailure.message }, now };
      return;
    }
    const step = atStep();
    if (!step || step.kind === 'tool') return;
    yield { type: 'Advance', journey, evaluated: request.evaluated, context: request.context, now };
    // The turn may already have run the tool of the step it just reached (the transition's guideline asked for it).
    const reached = current().status === 'Active' ? atStep() : undefined;
    if (toolResult && reached?.kind === 'tool' && reached.id === toolResult.step_id)
      yield { type: 'CompleteToolStep', journey, result: toolResult.result, evaluated: request.evaluated, now };
  }
}
