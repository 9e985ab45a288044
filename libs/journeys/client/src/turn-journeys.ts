import { Inject, Injectable } from '@nestjs/common';
import { sessionStreamId, type AdvanceJourneysReplyV1, type AdvanceJourneysRequestV1, type MatchGuidelinesReplyV1 } from '@tenet/contracts';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import {
  evaluateJourneyConditions,
  foldJourney,
  isJourneyConditionId,
  JOURNEY_CONDITION_ID_PREFIX,
  journeyConditions,
  type JourneyCondition,
  type JourneyDefinition,
  type JourneyEvent,
  type JourneyState,
} from '@tenet/journeys-domain';
import { rankWithout, type CompositionMode, type GuidelineMatch } from '@tenet/matching-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import {
  journeyDefinition,
  journeyTransitionRecords,
  lastCustomerActivity,
  recordedJourneys,
  type JourneyRecord,
  JourneysRepository,
} from '@tenet/catalog-data-access';
import { JourneyTimers } from './journey-timers.js';
import { SESSION_JOURNAL, type SessionJournal } from './session-journal.js';

type MatchResult = MatchGuidelinesReplyV1['result'];

/** The turn's check of a stored definition before it is used (the gateway's definition screen). */
export interface DefinitionCheck {
  usable<T>(kind: 'journey', record: T, toItem?: (record: T) => unknown): boolean;
}

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
  /** A journey whose tool step failed and whose on_failure says handoff: the session goes to a human after the reply. */
  handoff?: { journey_id: string };
}

/** Runs a tool step's tool through the turn's executor; `undefined` when the agent has no such runnable tool. */
export type StepToolRunner = (
  tool: string,
  args: Record<string, unknown>,
) => Promise<{ tool_id: string; status: 'succeeded' | 'failed'; result: unknown; error?: { code: string } } | undefined>;

/**
 * The session's journeys in one turn (docs/data-model.md#journeys, matching step 2; docs/adr/0011). Before matching it folds the
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
    @Inject(SESSION_JOURNAL) private readonly events: SessionJournal,
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
    defs: DefinitionCheck,
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
    private readonly events: SessionJournal,
    private readonly timers: JourneyTimers,
  ) {
    this.byId = new Map(records.map((r) => [r.id, r]));
    this.definitions = records.map(journeyDefinition);
    this.recorded = recordedJourneys(stream);
    for (const journey of this.definitions) this.states.set(journey.id, foldJourney((this.recorded[journey.id] ?? []) as JourneyEvent[]));
    this.lastActivityAt = lastCustomerActivity(stream);
    this.conditions = this.definitions.flatMap((journey) =>
      journeyConditions(journey, this.states.get(journey.id) ?? { status: 'NotStarted' }),
    );
  }

  /** The highest-priority active journey and its step: the matcher scopes journey guidelines to it. */
  get activeJourney(): { journey_id: string; step_id?: string } | undefined {
    for (const journey of this.definitions) {
      const state = this.states.get(journey.id);
      if (state?.status === 'Active')
        return { journey_id: journey.id, ...(state.currentStep !== undefined ? { step_id: state.currentStep } : {}) };
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
    return { ...result, ...rankWithout(result.matches as GuidelineMatch[], isJourneyConditionId, topN) } as MatchResult;
  }

  /**
   * After matching: the engine advances every journey involved (recorded in the session, or matched now) and the
   * turn appends what it decided. `matches` are every match result of the turn (tool rounds re-match).
   */
  async advance(
    request: (reply: AdvanceJourneysRequestV1) => Promise<AdvanceJourneysReplyV1>,
    input: {
      correlationId: string;
      matches: readonly MatchResult[];
      context: Record<string, unknown>;
      now: number;
      runTool: StepToolRunner;
    },
  ): Promise<JourneyProgress> {
    const matchedIds = new Set(input.matches.flatMap((r) => r.matches.map((m) => m.guideline_id)));
    const parameters = new Map(
      input.matches.flatMap((r) => (r.matches as GuidelineMatch[]).map((m) => [m.guideline_id, m.tool_parameters] as const)),
    );
    const matched = [...this.byId.values()].filter((j) => j.conditions.some((id) => matchedIds.has(id))).map((j) => j.id);
    const { held, evaluated, backtrack } = evaluateJourneyConditions(this.conditions, matchedIds);
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
      toolStep = {
        journey_id: step.journey_id,
        step_id: step.step_id,
        tool_id: ran?.tool_id ?? step.tool,
        status: ran ? ran.status : 'unrunnable',
      };
      const recorded = { ...base.recorded };
      for (const e of reply.events) (recorded[e.journey_id] ??= []).push(e.event);
      // Succeeded: the engine moves on with the result. Failed or not runnable (ADR 0030): the journey's on_failure
      // decides — a step to go on at, or the journey ends Failed (and is handed off) instead of retrying every turn.
      const second = await request(
        ran?.status === 'succeeded'
          ? { ...base, recorded, matched: [], tool_result: { journey_id: step.journey_id, step_id: step.step_id, result: ran.result } }
          : {
              ...base,
              recorded,
              matched: [],
              tool_failure: { journey_id: step.journey_id, step_id: step.step_id, ...stepFailure(step.tool, ran) },
            },
      );
      await this.record(second, input.correlationId);
      reply = { ...second, events: [...reply.events, ...second.events], rejected: [...reply.rejected, ...second.rejected] };
    }
    const failed = reply.events.find((e) => e.event.type === 'journey_failed');
    const failedJourney = failed ? this.byId.get(failed.journey_id) : undefined;
    const active = reply.active_journey;
    const journey = active ? this.byId.get(active.journey_id) : undefined;
    const step = journey?.steps.find((s) => s.id === active?.step_id);
    return {
      matched,
      evaluated,
      states: reply.states,
      events: reply.events.map(({ journey_id, event }) => ({
        journey_id,
        event: event.type,
        ...pick(event.data, ['step', 'resumed', 'from', 'to', 'cause', 'condition', 'reason', 'outcome']),
      })),
      ...(active ? { active } : {}),
      ...(journey && step?.instruction
        ? { instruction: { guideline_id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_step_${step.id}`, action: step.instruction } }
        : failedJourney
          ? { instruction: failureInstruction(failedJourney) }
          : {}),
      ...(journey?.composition_mode ? { composition_mode: journey.composition_mode } : {}),
      rejected: reply.rejected,
      ...(toolStep ? { tool_step: toolStep } : {}),
      ...(failed && failed.event.data['outcome'] === 'handoff' ? { handoff: { journey_id: failed.journey_id } } : {}),
    };
  }

  /** The engine's events go to the session stream (in order); its timers are armed in the background. */
  private async record(reply: AdvanceJourneysReplyV1, correlationId: string): Promise<void> {
    const records = journeyTransitionRecords(reply, this.sessionId, correlationId);
    if (records.length > 0) await this.events.appendRecords(this.sessionId, records);
    this.timers.armSoon(reply.effects);
  }
}

/**
 * Why a tool step failed, as the journey records and publishes it: the executor's stable code, and a sentence of
 * our own — never the tool's error text, which may carry whatever the tool server said.
 */
export function stepFailure(
  tool: string,
  ran: { status: string; error?: { code: string } } | undefined,
): { code: string; message: string } {
  if (!ran) return { code: 'TOOLS.UNRUNNABLE', message: `the agent has no runnable tool ${tool}` };
  const code = ran.error?.code ?? 'TOOLS.FAILED';
  return { code, message: code === 'TOOLS.TIMEOUT' ? `the tool ${tool} did not answer in time` : `the tool ${tool} failed` };
}

/** What the reply does when a journey failed this turn: own up and offer to help otherwise (composed like a guideline's action). */
const failureInstruction = (journey: JourneyRecord): { guideline_id: string; action: string } => ({
  guideline_id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_failed`,
  action: `Say: "I'm sorry, something went wrong on our side and I couldn't complete this (${journey.title}) just now. Is there anything else I can help you with?"`,
});

const pick = (data: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(fields.flatMap((f) => (data[f] !== undefined ? [[f, data[f]]] : [])));
