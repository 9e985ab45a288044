import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  JOURNEYS_ADVANCE_SUBJECT,
  MATCHER_COMPOSE_SUBJECT,
  MATCHER_MATCH_SUBJECT,
  sessionStreamId,
  type AdvanceJourneysReplyV1,
  type AdvanceJourneysRequestV1,
  type ComposeReplyReplyV1,
  type ComposeReplyRequestV1,
  type MatchGuidelinesReplyV1,
  type MatchGuidelinesRequestV1,
  type SessionEventData,
} from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { defaultMatchingOptions, type CompositionMode } from '@tenet/matching-domain';
import { failActiveSpan, TenetMetrics, traceHeaders } from '@tenet/observability';
import { EVENT_STORE } from '@tenet/platform-runtime';
import {
  DEFAULT_FAILURE_REPLY,
  decideTurn,
  turnErrorTypeOf,
  evolveTurn,
  initialTurnState,
  TurnCancelled,
  type TurnEffect,
  type TurnInput,
  type TurnOutcome,
  type TurnState,
} from '@tenet/session-domain';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { budgetRefusalOf } from '@tenet/metering-http';
import type { JourneyProgress } from '@tenet/journeys-client';
import type { RememberedForReply } from '@tenet/memory-client';
import { TurnTools, type RunnableTool, type ToolRun, type TurnToolLog } from '@tenet/tools-client';
import { BudgetExhaustion } from './budget-exhaustion.js';
import { modeChange, SessionEventsService, SessionsRepository, SessionTimers, type EventView } from '@tenet/session-data-access';
import { TurnContext } from './turn-context.js';
import type { TurnDeadline } from './turn-deadline.js';
import { customerFacingError } from './turn-error.js';
import { TurnLeaseLostError, type HeldLease } from './turn-lease.js';
import type { PricedCall } from './turn-meter.js';
import { compositionModeOf } from './turn-ports.js';
import { TurnPreparation, type BudgetHold, type PreparedTurn } from './turn-preparation.js';
import { composeRequest, matchRequest, readyData, type TurnFindings } from './turn-requests.js';

type Status = (value: string, data?: Record<string, unknown>) => Promise<EventView>;

/** What the runner keeps of one turn: its ports and the results the workflow decided on. */
interface TurnRun {
  sessionId: string;
  trigger: EventView;
  status: Status;
  lease: HeldLease;
  deadline: TurnDeadline;
  hold: BudgetHold;
  prepared?: PreparedTurn;
  runnable: Map<string, RunnableTool>;
  matched?: MatchGuidelinesReplyV1;
  /** Every match reply of the turn (journeys move on what any of them evaluated). */
  matchResults: MatchGuidelinesReplyV1['result'][];
  pending: Map<string, ToolRun>;
  tools: TurnToolLog;
  calls: PricedCall[];
  /** The calls of the latest model step, metered by the next `Meter`. */
  unmetered: MatchGuidelinesReplyV1['calls'];
  remembered?: RememberedForReply | undefined;
  /** Required context variables still without a value: the reply asks for them, `ready` lists them. */
  missingContext: { name: string; required: boolean }[];
  journey?: JourneyProgress | undefined;
  compositionMode?: CompositionMode;
  reply?: ComposeReplyReplyV1;
  /** The error behind `BudgetRefused` or `TurnFailed`. */
  error?: unknown;
  rethrow?: boolean;
  /** The tool whose failure failed the turn. */
  failedTool?: { toolId: string; error: { code: string; message: string } };
}

/**
 * Runs one turn: feeds the turn workflow (@tenet/session-domain `decideTurn`) what happened, and carries out
 * each effect it returns through the gateway's ports — the matcher and the journey engine on the bus (under
 * the turn's deadline), the tool executor, the session log, metering. An effect that learns something ends
 * its batch with the next input; a thrown error becomes `TurnInterrupted`, `BudgetRefused` or `TurnFailed`.
 */
@Injectable()
export class TurnRunner {
  constructor(
    private readonly preparation: TurnPreparation,
    private readonly tools: TurnTools,
    private readonly events: SessionEventsService,
    private readonly sessions: SessionsRepository,
    private readonly agents: AgentsRepository,
    private readonly timers: SessionTimers,
    private readonly context: TurnContext,
    private readonly budgetExhaustion: BudgetExhaustion,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() private readonly metrics?: TenetMetrics,
  ) {}

  /** Runs the turn to its end and returns its outcome; an unexpected error is rethrown once answered. */
  async run(
    sessionId: string,
    trigger: EventView,
    ports: { status: Status; lease: HeldLease; deadline: TurnDeadline; hold: BudgetHold },
  ): Promise<TurnOutcome> {
    const run: TurnRun = {
      sessionId,
      trigger,
      ...ports,
      runnable: new Map(),
      matchResults: [],
      pending: new Map(),
      tools: { calls: [], outcomes: [], issues: [] },
      calls: [],
      unmetered: [],
      missingContext: [],
    };
    let state: TurnState = initialTurnState();
    let input: TurnInput | undefined = { type: 'TurnStarted', data: {} };
    let outcome: TurnOutcome | undefined;
    while (input && !outcome) {
      const effects = decideTurn(input, state);
      state = evolveTurn(state, input);
      const failing = input.type === 'TurnFailed' || input.type === 'TurnInterrupted' || input.type === 'BudgetRefused';
      input = undefined;
      for (const effect of effects) {
        // Folded as it is carried out: a batch cut short by a checkpoint leaves the later effects undone.
        state = evolveTurn(state, effect);
        const next = await this.attempt(effect, run, failing);
        if (typeof next === 'string') outcome = next;
        else if (next) input = next;
        if (input || outcome) break;
      }
    }
    if (run.rethrow) throw run.error;
    return outcome ?? 'error';
  }

  /** Carries out one effect; a thrown error becomes the input that says so (while answering a failure, it propagates). */
  private async attempt(effect: TurnEffect, run: TurnRun, failing: boolean): Promise<TurnInput | TurnOutcome | undefined> {
    try {
      return await this.execute(effect, run);
    } catch (error) {
      if (failing) throw error;
      return this.inputOf(error, run);
    }
  }

  private inputOf(error: unknown, run: TurnRun): TurnInput {
    if (error instanceof TurnCancelled) return { type: 'TurnInterrupted', data: { reason: 'newer_message' } };
    run.error = error;
    if (budgetRefusalOf(error)) return { type: 'BudgetRefused', data: {} };
    // Rethrown once the failure is answered and recorded, so `start` logs it (redacted) and the span shows it.
    run.rethrow = true;
    // A lost lease: another gateway took the turn over and answers; this one only records the error.
    return { type: 'TurnFailed', data: { code: customerFacingError(error).code, answerCustomer: !(error instanceof TurnLeaseLostError) } };
  }

  private async execute(effect: TurnEffect, run: TurnRun): Promise<TurnInput | TurnOutcome | undefined> {
    switch (effect.kind) {
      case 'Checkpoint':
        return this.checkpoint(run);
      case 'Prepare':
        return this.prepare(run);
      case 'MatchGuidelines':
        return this.match(run, effect.round);
      case 'Meter':
        return this.meter(run);
      case 'ReportUnrunnableTools':
        return void this.tools.reportUnrunnable(effect.toolNames, run.runnable, run.tools);
      case 'AwaitTool':
        await run.status('processing', { stage: 'awaiting_tool', tool_ids: effect.toolIds });
        return void (await this.timers.awaitTool(run.sessionId));
      case 'RunTools':
        return this.runTools(run, effect.keys);
      case 'CompleteTool':
        return void (await this.timers.completeTool(run.sessionId));
      case 'AwaitMemory':
        return this.remember(run);
      case 'AdvanceJourneys':
        return this.advanceJourneys(run);
      case 'ComposeReply':
        return this.compose(run, effect.compositionMode);
      default:
        return this.finish(effect, run);
    }
  }

  /** The effects that write the turn's end: the reply or the failure, the session's next state, the outcome. */
  private async finish(effect: TurnEffect, run: TurnRun): Promise<TurnOutcome | undefined> {
    switch (effect.kind) {
      case 'AppendReply':
        return this.appendReply(run);
      case 'AwaitInput':
        return void (await this.timers.awaitInput(run.sessionId));
      case 'HandOff':
        return void (await this.sessions.change(run.sessionId, (record) => ({
          events: modeChange(record, 'manual', 'guideline', effect.guidelineId),
          result: undefined,
        })));
      case 'HandOffJourney':
        return void (await this.sessions.change(run.sessionId, (record) => ({
          events: modeChange(record, 'manual', 'journey', undefined, effect.journeyId),
          result: undefined,
        })));
      case 'AnswerBudgetExhausted':
        return this.budgetExhaustion.answer(run.sessionId, run.error, run.trigger.correlation_id);
      case 'ReplyFailure':
        return this.replyFailure(run, effect.errorType);
      case 'AppendError':
        return void (await run.status('error', this.errorData(run, effect.code)));
      case 'AppendCancelled':
        return void (await run.status('cancelled'));
      case 'Complete':
        // A turn failed by a tool (a value, not a throw) marks its span failed like a thrown error would.
        if (effect.outcome === 'error' && run.failedTool)
          failActiveSpan({ code: run.failedTool.error.code, message: `tool ${run.failedTool.toolId} failed` });
        return effect.outcome;
      default:
        throw new Error(`the turn runner has no handler for ${effect.kind}`);
    }
  }

  /** Still the lease holder, no newer customer message, the session still `auto` (a human took it over: hand-off). */
  private async checkpoint(run: TurnRun): Promise<TurnInput | undefined> {
    await run.lease.assertHeld();
    if (await this.supersededAfter(run.sessionId, run.trigger.offset))
      return { type: 'TurnInterrupted', data: { reason: 'newer_message' } };
    if ((await this.sessions.get(run.sessionId))?.view.mode !== 'auto') return { type: 'TurnInterrupted', data: { reason: 'handoff' } };
    return undefined;
  }

  /** A newer customer message supersedes the turn (Parlant's behaviour), whichever gateway received it. */
  async supersededAfter(sessionId: string, offset: number): Promise<boolean> {
    // Run on every append to the session while a turn runs: only messages are read (the store drops the rest unparsed).
    const later = await this.store.readStream(sessionStreamId(sessionId), { fromOffset: offset + 1, types: ['message'] });
    return later.some((event) => (event.data as SessionEventData).source === 'customer');
  }

  private async prepare(run: TurnRun): Promise<TurnInput> {
    const turn = await this.preparation.prepare(run.sessionId, run.trigger, run.deadline, run.hold, () => run.status('processing'));
    run.prepared = turn;
    run.runnable = new Map(turn.extras.runnableTools.map((t) => [t.name, t]));
    const data = {
      toolRoundLimit: Math.min(MAX_TOOL_ROUNDS, turn.agent.max_engine_iterations),
      compositionMode: compositionModeOf(turn.agent.composition_mode),
      journeys: turn.journeys !== undefined,
      memory: turn.memory !== undefined,
    };
    return { type: 'TurnPrepared', data };
  }

  private async match(run: TurnRun, round: number): Promise<TurnInput> {
    const turn = prepared(run);
    const timer = round === 0 ? this.metrics?.turnDuration.startTimer({ stage: 'match' }) : undefined;
    const reply = await run.deadline.request<MatchGuidelinesReplyV1, MatchGuidelinesRequestV1>(
      MATCHER_MATCH_SUBJECT,
      matchRequest(turn, run.tools.outcomes),
      turn.billed,
      traceHeaders(),
    );
    timer?.();
    run.matchResults.push(reply.result);
    // Journey conditions are evaluated, then left out of the ranking: they have no action to take a top-N place with.
    run.matched = turn.journeys
      ? { ...reply, result: turn.journeys.withoutConditions(reply.result, turn.extras.settings?.top_n ?? defaultMatchingOptions.topN) }
      : reply;
    if (turn.intents && round === 0) {
      // Intent → tool adds its call; while clarifying nothing runs; intent → journey counts as its condition matched.
      run.matched = { ...run.matched, result: turn.intents.gate(run.matched.result) };
      run.matchResults.push(...turn.intents.journeyMatches());
    }
    run.unmetered = reply.calls ?? (reply.usage ? [reply.usage] : []);
    const result = run.matched.result;
    const { asked, runs } = this.tools.resolve(result.tools_to_execute, run.runnable);
    run.pending = runs;
    const byId = new Map(turn.agentGuidelines.map((g) => [g.id, g]));
    const top = result.top_matches.map((m) => byId.get(m.guideline_id));
    const handoff = top.find((g) => g?.metadata?.['handoff'] === true);
    const data = {
      toolCalls: asked,
      disambiguation: Boolean(result.disambiguation),
      compositionModes: top.map((g) => g?.composition_mode),
      ...(handoff ? { handoffGuidelineId: handoff.id } : {}),
    };
    return { type: 'GuidelinesMatched', data };
  }

  private async meter(run: TurnRun): Promise<undefined> {
    run.calls.push(...(await prepared(run).billed(run.unmetered ?? [])));
    run.unmetered = [];
    return undefined;
  }

  private async runTools(run: TurnRun, keys: readonly string[]): Promise<TurnInput> {
    const turn = prepared(run);
    const runs = keys.flatMap((key) => run.pending.get(key) ?? []);
    const results = await this.tools.run(run.sessionId, run.trigger.correlation_id, turn.agent.id, runs, run.tools);
    const ran = runs.map((r, i) => {
      const result = results[i];
      const failed = result?.status !== 'succeeded';
      if (failed && !r.tool.allow_failure && !run.failedTool)
        run.failedTool = { toolId: r.toolId, error: result?.error ?? { code: 'TOOLS.FAILED', message: 'failed' } };
      return {
        toolId: r.toolId,
        status: failed ? ('failed' as const) : ('succeeded' as const),
        allowFailure: r.tool.allow_failure,
        ...(result?.error ? { errorCode: result.error.code } : {}),
      };
    });
    return { type: 'ToolsRan', data: { results: ran } };
  }

  /** Recall and extraction ran alongside matching; what this message told us counts for the journey's required context. */
  private async remember(run: TurnRun): Promise<TurnInput> {
    const turn = prepared(run);
    run.remembered = await turn.memory?.forCompose();
    run.calls.push(...(run.remembered?.calls ?? []));
    run.missingContext = await this.context.missingRequired(
      turn.agent.id,
      { ...turn.contextValues, ...run.remembered?.fieldValues },
      turn.defs,
    );
    return { type: 'MemoryReady', data: {} };
  }

  /** Journeys move on what the matcher evaluated; a tool step reached runs through the executor (turn-journeys.ts). */
  private async advanceJourneys(run: TurnRun): Promise<TurnInput> {
    const turn = prepared(run);
    const journeys = turn.journeys;
    if (!journeys) return { type: 'JourneysAdvanced', data: {} };
    const advance = (request: AdvanceJourneysRequestV1) =>
      run.deadline.request<AdvanceJourneysReplyV1, AdvanceJourneysRequestV1>(
        JOURNEYS_ADVANCE_SUBJECT,
        request,
        async () => undefined,
        traceHeaders(),
      );
    run.journey = await journeys.advance(advance, {
      correlationId: run.trigger.correlation_id,
      matches: run.matchResults,
      context: { ...turn.contextValues, ...run.remembered?.fieldValues },
      now: Date.now(),
      runTool: (name, args) => this.runStepTool(run, name, args),
    });
    const { composition_mode: compositionMode, handoff } = run.journey;
    return {
      type: 'JourneysAdvanced',
      data: { ...(compositionMode ? { compositionMode } : {}), ...(handoff ? { handoffJourneyId: handoff.journey_id } : {}) },
    };
  }

  /** A journey's tool step: only the tool's own parameters (the context holds every variable of the customer). */
  private async runStepTool(run: TurnRun, name: string, args: Record<string, unknown>) {
    const { asked, runs } = this.tools.resolve([{ tool_name: name, parameters: args }], run.runnable);
    const call = asked[0];
    const found = call && runs.get(call.key);
    if (!found) {
      this.tools.reportUnrunnable([name], run.runnable, run.tools);
      return undefined;
    }
    const parameters = ((found.tool.parameters as { properties?: Record<string, unknown> }).properties ?? {}) as Record<string, unknown>;
    const picked = { ...found, args: Object.fromEntries(Object.entries(args).filter(([k]) => k in parameters)) };
    const [result] = await this.tools.run(run.sessionId, run.trigger.correlation_id, prepared(run).agent.id, [picked], run.tools);
    return result
      ? {
          tool_id: found.toolId,
          status: result.status,
          result: result.result?.data ?? null,
          ...(result.error ? { error: { code: result.error.code } } : {}),
        }
      : undefined;
  }

  private async compose(run: TurnRun, compositionMode: CompositionMode): Promise<TurnInput> {
    const turn = prepared(run);
    await run.status('typing');
    const capabilities = await this.context.capabilities(turn.agent.id, turn.defs);
    const timer = this.metrics?.turnDuration.startTimer({ stage: 'compose' });
    const request = composeRequest(turn, findings(run), compositionMode, capabilities);
    const reply = await run.deadline.request<ComposeReplyReplyV1, ComposeReplyRequestV1>(
      MATCHER_COMPOSE_SUBJECT,
      request,
      turn.billed,
      traceHeaders(),
    );
    timer?.();
    run.reply = reply;
    run.compositionMode = compositionMode;
    run.unmetered = reply.calls ?? [reply.usage];
    return { type: 'ReplyComposed', data: {} };
  }

  private async appendReply(run: TurnRun): Promise<undefined> {
    const turn = prepared(run);
    const reply = run.reply;
    if (!reply || !run.compositionMode) throw new Error('the turn appends a reply it has not composed');
    const participant = { id: turn.agent.id, display_name: turn.agent.name };
    // A journey whose tool step failed this turn is owned up to in the reply (its failure instruction): the message says so.
    const journeyFailed = run.journey?.events.some((e) => e.event === 'journey_failed');
    const intent = turn.intents?.messageData();
    const cited = turn.memory?.messageData(reply.cited_chunk_ids);
    const data =
      journeyFailed || intent
        ? { ...cited, ...intent, ...(journeyFailed ? { error_type: turnErrorTypeOf('JOURNEYS.STEP_FAILED') } : {}) }
        : cited;
    // The reply and its `ready` in one append: one write instead of two, the same two events on the wire (ADR 0037).
    const ready = readyData(turn, findings(run), reply, run.compositionMode);
    await this.events.appendAll(
      run.sessionId,
      [
        { kind: 'message', source: 'ai_agent', message: reply.message, participant, data },
        { kind: 'status', source: 'ai_agent', status: 'ready', data: ready },
      ],
      run.trigger.correlation_id,
    );
    await turn.intents?.record(run.sessionId, run.trigger.correlation_id);
    return undefined;
  }

  /** The agent's failure reply (its `failure_reply`, else a short apology), saying what kind of failure it was. */
  private async replyFailure(run: TurnRun, errorType: string): Promise<undefined> {
    const agent = run.prepared?.agent ?? (await this.agentOf(run.sessionId));
    const participant = agent ? { id: agent.id, display_name: agent.name } : undefined;
    const message = agent?.failure_reply ?? DEFAULT_FAILURE_REPLY;
    await this.events.append(
      run.sessionId,
      { kind: 'message', source: 'ai_agent', message, ...(participant ? { participant } : {}), data: { error_type: errorType } },
      run.trigger.correlation_id,
    );
    return undefined;
  }

  private async agentOf(sessionId: string) {
    const session = await this.sessions.get(sessionId).catch(() => undefined);
    return session && (await this.agents.get(session.view.agent_id).catch(() => undefined));
  }

  /** The `error` status: a failed tool is named with its code; anything else is a stable code and a generic sentence. */
  private errorData(run: TurnRun, code: string): Record<string, unknown> {
    const tool = run.failedTool;
    if (tool)
      return {
        exception: `tool ${tool.toolId} failed (${tool.error.code}): ${tool.error.message}`,
        tool_id: tool.toolId,
        code: tool.error.code,
      };
    return { ...customerFacingError(run.error), code };
  }
}

/** Parlant's limit on tool-call rounds in one turn (each round re-evaluates the guidelines with the results). */
const MAX_TOOL_ROUNDS = 3;

function prepared(run: TurnRun): PreparedTurn {
  if (!run.prepared) throw new Error('the turn workflow asked for a step before the turn was prepared');
  return run.prepared;
}

function findings(run: TurnRun): TurnFindings {
  if (!run.matched) throw new Error('the turn workflow asked to compose before matching');
  return {
    matched: run.matched,
    tools: run.tools,
    calls: run.calls,
    remembered: run.remembered,
    journey: run.journey,
    missingContext: run.missingContext,
    firstMatch: run.matchResults[0],
  };
}
