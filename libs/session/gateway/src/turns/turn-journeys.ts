import { Inject, Injectable } from '@nestjs/common';
import { sessionStreamId, type AdvanceJourneysReplyV1, type AdvanceJourneysRequestV1, type MatchGuidelinesReplyV1 } from '@tenet/contracts';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { foldJourney, pendingConditions, resumeConditions, type JourneyDefinition, type JourneyEvent, type JourneyState } from '@tenet/journeys-domain';
import { rankMatches, type CompositionMode, type GuidelineMatch } from '@tenet/matching-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { SessionEventsService } from '../events/session-events.service.js';
import { journeyDefinition, journeyTransitionRecords, lastCustomerActivity, recordedJourneys, type JourneyRecord, JourneysRepository } from '@tenet/catalog-data-access';
import type { TurnDefinitions } from './turn-definitions.js';
import { JourneyTimers } from '../sessions/journey-timers.js';

type Started = Exclude<JourneyState, { status: 'NotStarted' }>;
type MatchResult = MatchGuidelinesReplyV1['result'];

/**
 * A journey condition the turn asks the matcher to evaluate, as a guideline without an action (so it never
 * acts, and the matcher's one batched call evaluates it with the agent's guidelines — journeys add no LLM call):
 * - `transition`: an outgoing transition of an active journey's current step (the customer answered the step);
 * - `resume`: the same for a journey the customer abandoned (answering it resumes the journey);
 * - `backtrack`: a branch not taken at an earlier step (the customer changed that answer: go back there).
 * Ids are deterministic (journey, kind, step, index), so recorded provider answers replay.
 */
interface JourneyCondition {
  id: string;
  journeyId: string;
  kind: 'transition' | 'resume' | 'backtrack';
  condition: string;
  /** The step the condition leaves from (backtrack: the step to go back to). */
  from: string;
  to: string;
  /** The target is a tool step: the matcher extracts its tool's arguments from the same message. */
  tool?: string;
}

export const JOURNEY_CONDITION_ID_PREFIX = 'journey_';
export const isJourneyConditionId = (id: string): boolean => id.startsWith(JOURNEY_CONDITION_ID_PREFIX);

/** What the matcher evaluates for journeys, as guidelines of the match request. */
export interface JourneyGuideline {
  id: string;
  condition: string;
  priority: number;
  enabled: boolean;
  tools: string[];
  required_context: string[];
  continuous: true;
  journey_id?: string;
}

/** The outcome of the turn's journeys, for the reply and the `ready` status. */
export interface JourneyProgress {
  /** Journeys whose conditions matched this turn (Parlant's `matched_journeys`). */
  matched: string[];
  /** The journey conditions the matcher evaluated this turn, by text (what moved or did not move the journeys). */
  evaluated: Record<string, boolean>;
  states: AdvanceJourneysReplyV1['states'];
  /** What happened to the journeys this turn, as published (activated/transitioned/completed; never their context). */
  events: { journey_id: string; event: string; [field: string]: unknown }[];
  active?: { journey_id: string; step_id?: string };
  /** The active step's instruction: what the reply must do now (composed like a matched guideline's action). */
  instruction?: { guideline_id: string; action: string };
  composition_mode?: CompositionMode;
  rejected: AdvanceJourneysReplyV1['rejected'];
  tool_step?: { journey_id: string; step_id: string; tool_id: string; status: string };
}

/** Runs a tool step's tool through the turn's executor; `undefined` when the agent has no such runnable tool. */
export type StepToolRunner = (tool: string, args: Record<string, unknown>) => Promise<{ tool_id: string; status: 'succeeded' | 'failed'; result: unknown } | undefined>;

/**
 * The session's journeys in one turn (seed 000 §4, §8 step 2; docs/adr/0011). Before matching it folds the
 * session's `journey_transition` records into each journey's state (the pure decider of @tenet/journeys-domain),
 * adds the conditions the matcher should evaluate, and names the active journey so journey-scoped guidelines
 * apply. After matching it sends what matched to the journey engine (one request, answered by any replica; none
 * when no journey is involved), appends the engine's events to the session stream, runs a tool step through the
 * tool executor when one is reached, and arms the abandon/expiry timers.
 */
@Injectable()
export class TurnJourneys {
  constructor(
    private readonly journeys: JourneysRepository,
    private readonly events: SessionEventsService,
    private readonly timers: JourneyTimers,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /**
   * The session's journeys before matching; `undefined` when the agent or session has journeys off, or has none.
   * A stored journey whose definition breaks the engine's contract is left out (`defs`).
   */
  async begin(
    agent: { id: string; tags: readonly string[]; journeys?: readonly string[]; config: { enable_journeys: boolean } },
    session: { id: string; config: { enable_journeys: boolean } },
    defs: TurnDefinitions,
  ): Promise<JourneyTurn | undefined> {
    if (!session.config.enable_journeys) return undefined;
    const records = await this.journeys.forAgent(agent, (journey) => defs.usable('journey', journey, journeyDefinition));
    if (records.length === 0) return undefined;
    const stream = await this.store.readStream(sessionStreamId(session.id));
    return new JourneyTurn(session.id, records, stream, this.events, this.timers);
  }
}

export class JourneyTurn {
  readonly conditions: JourneyCondition[];
  private readonly definitions: JourneyDefinition[];
  private readonly recorded: AdvanceJourneysRequestV1['recorded'];
  private readonly states = new Map<string, JourneyState>();
  private readonly byId: Map<string, JourneyRecord>;
  private readonly lastActivityAt: number | undefined;

  constructor(
    private readonly sessionId: string,
    records: readonly JourneyRecord[],
    stream: readonly StoredEvent[],
    private readonly events: SessionEventsService,
    private readonly timers: JourneyTimers,
  ) {
    this.byId = new Map(records.map((r) => [r.id, r]));
    this.definitions = records.map(journeyDefinition);
    this.recorded = recordedJourneys(stream);
    for (const journey of this.definitions) this.states.set(journey.id, foldJourney((this.recorded[journey.id] ?? []) as JourneyEvent[]));
    this.lastActivityAt = lastCustomerActivity(stream);
    this.conditions = this.definitions.flatMap((journey) => conditionsOf(journey, this.states.get(journey.id) ?? { status: 'NotStarted' }));
  }

  /** The highest-priority active journey and its step: the matcher scopes journey guidelines to it. */
  get activeJourney(): { journey_id: string; step_id?: string } | undefined {
    for (const journey of this.definitions) {
      const state = this.states.get(journey.id);
      if (state?.status === 'Active') return { journey_id: journey.id, ...(state.currentStep !== undefined ? { step_id: state.currentStep } : {}) };
    }
    return undefined;
  }

  /** The journey conditions as guidelines without an action, continuous (re-evaluated whenever they hold). */
  guidelines(): JourneyGuideline[] {
    const lead = this.activeJourney?.journey_id;
    return this.conditions.map((c) => ({
      id: c.id,
      condition: c.condition,
      priority: 0,
      enabled: true,
      tools: c.tool !== undefined ? [c.tool] : [],
      required_context: [],
      continuous: true,
      // The lead journey's own conditions are journey-scoped, so the prefilter keeps them whatever its budget.
      ...(c.journeyId === lead && c.kind !== 'resume' ? { journey_id: c.journeyId } : {}),
    }));
  }

  /**
   * The match result without the journey conditions, re-ranked (they have no action and must not take top-N
   * places from the agent's guidelines). Unchanged when the turn evaluated no journey condition.
   */
  withoutConditions(result: MatchResult, topN: number): MatchResult {
    if (this.conditions.length === 0) return result;
    const ranked = rankMatches((result.matches as GuidelineMatch[]).filter((m) => !isJourneyConditionId(m.guideline_id)), topN);
    return { ...result, ...ranked } as MatchResult;
  }

  /**
   * After matching: the engine advances every journey involved (recorded in the session, or matched now) and the
   * turn appends what it decided. `matches` are every match result of the turn (tool rounds re-match).
   */
  async advance(
    request: (reply: AdvanceJourneysRequestV1) => Promise<AdvanceJourneysReplyV1>,
    input: { correlationId: string; matches: readonly MatchResult[]; context: Record<string, unknown>; now: number; runTool: StepToolRunner },
  ): Promise<JourneyProgress> {
    const matchedIds = new Set(input.matches.flatMap((r) => r.matches.map((m) => m.guideline_id)));
    const parameters = new Map(input.matches.flatMap((r) => (r.matches as GuidelineMatch[]).map((m) => [m.guideline_id, m.tool_parameters] as const)));
    const matched = [...this.byId.values()].filter((j) => j.conditions.some((id) => matchedIds.has(id))).map((j) => j.id);
    const held = this.conditions.filter((c) => matchedIds.has(c.id));
    const evaluated: Record<string, boolean> = {};
    for (const c of this.conditions) evaluated[c.condition] = evaluated[c.condition] === true || held.includes(c);
    // A changed earlier answer: go back to the step where the other branch leaves (the first one, per journey).
    const backtrack = held.find((c) => c.kind === 'backtrack');
    const involved = this.definitions.filter((j) => this.recorded[j.id] !== undefined || matched.includes(j.id));
    if (involved.length === 0) return { matched, evaluated, states: [], events: [], rejected: [] };

    const base: AdvanceJourneysRequestV1 = {
      session_id: this.sessionId,
      correlation_id: input.correlationId,
      now: input.now,
      journeys: involved,
      recorded: Object.fromEntries(involved.map((j) => [j.id, this.recorded[j.id] ?? []])),
      matched,
      evaluated,
      context: input.context,
      ...(backtrack ? { backtrack: { journey_id: backtrack.journeyId, to: backtrack.from } } : {}),
      ...(this.lastActivityAt !== undefined ? { last_activity_at: this.lastActivityAt } : {}),
    };
    let reply = await request(base);
    await this.record(reply, input.correlationId);
    let toolStep: JourneyProgress['tool_step'];
    if (reply.tool_step) {
      // A tool step reached (or still pending): run its tool with the arguments the matcher extracted for the
      // transition into it, else the context values named like its parameters; then the engine moves on.
      const step = reply.tool_step;
      const entry = held.find((c) => c.journeyId === step.journey_id && c.to === step.step_id && c.tool !== undefined);
      const extracted = entry ? ((parameters.get(entry.id) ?? {})[step.tool] as Record<string, unknown> | undefined) : undefined;
      const ran = await input.runTool(step.tool, { ...input.context, ...(extracted ?? {}) });
      toolStep = { journey_id: step.journey_id, step_id: step.step_id, tool_id: ran?.tool_id ?? step.tool, status: ran ? ran.status : 'unrunnable' };
      if (ran?.status === 'succeeded') {
        const recorded = { ...base.recorded };
        for (const e of reply.events) (recorded[e.journey_id] ??= []).push(e.event);
        const second = await request({ ...base, recorded, matched: [], tool_result: { journey_id: step.journey_id, step_id: step.step_id, result: ran.result } });
        await this.record(second, input.correlationId);
        reply = { ...second, events: [...reply.events, ...second.events], rejected: [...reply.rejected, ...second.rejected] };
      }
    }
    const active = reply.active_journey;
    const journey = active ? this.byId.get(active.journey_id) : undefined;
    const step = journey?.steps.find((s) => s.id === active?.step_id);
    return {
      matched,
      evaluated,
      states: reply.states,
      events: reply.events.map(({ journey_id, event }) => ({ journey_id, event: event.type, ...pick(event.data, ['step', 'resumed', 'from', 'to', 'cause', 'condition']) })),
      ...(active ? { active } : {}),
      ...(journey && step?.instruction ? { instruction: { guideline_id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_step_${step.id}`, action: step.instruction } } : {}),
      ...(journey?.composition_mode ? { composition_mode: journey.composition_mode } : {}),
      rejected: reply.rejected,
      ...(toolStep ? { tool_step: toolStep } : {}),
    };
  }

  /** The engine's events go to the session stream (in order); its timers are armed in the background. */
  private async record(reply: AdvanceJourneysReplyV1, correlationId: string): Promise<void> {
    const records = journeyTransitionRecords(reply, this.sessionId, correlationId);
    if (records.length > 0) await this.events.appendRecords(this.sessionId, records);
    this.timers.armSoon(reply.effects);
  }
}

/** The conditions one journey asks the matcher to evaluate, given its state in the session. */
function conditionsOf(journey: JourneyDefinition, state: JourneyState): JourneyCondition[] {
  if (state.status !== 'Active' && state.status !== 'Abandoned') return [];
  const current = (state as Started).currentStep;
  if (current === undefined) return [];
  const stepKind = (id: string) => journey.steps.find((s) => s.id === id);
  const toolOf = (id: string): string | undefined => {
    const step = stepKind(id);
    return step?.kind === 'tool' ? step.tool : undefined;
  };
  const kind = state.status === 'Active' ? 'transition' : 'resume';
  const pending = state.status === 'Active' ? pendingConditions(journey, state) : resumeConditions(journey, state);
  const out: JourneyCondition[] = [];
  journey.transitions.forEach((t, index) => {
    if (t.from !== current || t.condition === undefined || !pending.includes(t.condition)) return;
    const tool = toolOf(t.to);
    out.push({ id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_${kind}_${index}`, journeyId: journey.id, kind, condition: t.condition, from: t.from, to: t.to, ...(tool !== undefined ? { tool } : {}) });
  });
  if (state.status !== 'Active') return out;
  // Branches not taken at the steps already walked (the step after each in the history is the one taken).
  const walked = (state as Started).history.map((h) => h.step_id);
  walked.slice(0, -1).forEach((stepId, i) => {
    const taken = walked[i + 1];
    journey.transitions.forEach((t, index) => {
      if (t.from !== stepId || t.to === taken || t.condition === undefined || out.some((c) => c.condition === t.condition)) return;
      out.push({ id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_backtrack_${index}`, journeyId: journey.id, kind: 'backtrack', condition: t.condition, from: stepId, to: t.to });
    });
  });
  return out;
}

const pick = (data: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> => Object.fromEntries(fields.flatMap((f) => (data[f] !== undefined ? [[f, data[f]]] : [])));
