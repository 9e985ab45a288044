import { hostname } from 'node:os';
import { WorkspaceDirectory, newId } from '@tenet/edge';
import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  JOURNEYS_ADVANCE_SUBJECT,
  MATCHER_COMPOSE_SUBJECT,
  MATCHER_MATCH_SUBJECT,
  sessionStreamId,
  type CallUsageV1,
  type ComposeReplyReplyV1,
  type AdvanceJourneysReplyV1,
  type AdvanceJourneysRequestV1,
  type BudgetScopeV1,
  type ComposeReplyRequestV1,
  type MatchGuidelinesReplyV1,
  type MatchGuidelinesRequestV1,
  type SessionEventData,
} from '@tenet/contracts';
import { inBackground, type EventStore } from '@tenet/event-store';
import { redactSecrets } from '@tenet/llm';
import type { MessageBus } from '@tenet/messaging';
import { appliedAfterReply, COMPOSITION_MODES, defaultMatchingOptions, effectiveCompositionMode, type CompositionMode, type GuidelineMatch, type MatchableGuideline } from '@tenet/matching-domain';
import { microUsd } from '@tenet/metering-domain';
import { TenetMetrics, traced, traceHeaders } from '@tenet/observability';
import type { ToolOutcome } from '@tenet/llm';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { AgentsRepository, TOOL_RUNNER, type ToolRunner } from '@tenet/catalog-data-access';
import { AgentBudgets, budgetRefusalOf, turnTokenEstimate, UsageStreamSink } from '@tenet/metering-http';
import { BudgetExhaustion } from '../sessions/budget-exhaustion.js';
import type { EventView } from '../events/event.dto.js';
import { sessionAppendedSubject, SessionEventsService } from '../events/session-events.service.js';
import { SessionTimers } from '../sessions/session-timers.js';
import { modeChange, SessionsRepository } from '../sessions/sessions.repository.js';
import { TurnContext } from './turn-context.js';
import { DefinitionScreen, type TurnDefinitions } from './turn-definitions.js';
import { TurnJourneys, type JourneyProgress } from './turn-journeys.js';
import { customerFacingError } from './turn-error.js';
import { readTurnTail, SESSION_APPLIED_FIELD } from './turn-history.js';
import { TurnCancelled, TurnDeadline, turnTimingFrom, type TurnTiming } from './turn-deadline.js';
import { TurnLeases, turnLeaseTtlFrom, type HeldLease } from './turn-lease.js';
import { TurnMemory } from './turn-memory.js';
import { TurnRecovery } from './turn-recovery.js';
import { runToolCall, ToolCallFailedError, toolFieldValues, toOutcome, type RunnableTool, type TurnToolCall, type WantedCall } from './tool-calls.js';

export type { RunnableTool } from './tool-calls.js';

export const GUIDELINE_SOURCE = Symbol.for('tenet.gateway.guideline-source');

type SourcedGuideline = MatchableGuideline & { track?: boolean; metadata?: Record<string, unknown>; composition_mode?: CompositionMode };

/**
 * Where a turn gets the guidelines that apply to an agent (tagged `agent:<id>`, or untagged); `usable` screens
 * each stored guideline before its tags are read.
 */
export interface GuidelineSource {
  forAgent(agentId: string, usable?: (guideline: SourcedGuideline) => boolean): Promise<SourcedGuideline[]>;
}

/** A guideline as the match request carries it. */
const guidelineItem = (g: SourcedGuideline): MatchGuidelinesRequestV1['guidelines'][number] => ({
  id: g.id,
  condition: g.condition,
  ...(g.action ? { action: g.action } : {}),
  priority: g.priority,
  enabled: g.enabled,
  tools: g.tools,
  required_context: g.required_context,
  ...(g.criticality ? { criticality: g.criticality } : {}),
  // Parlant: `metadata.continuous` re-applies whenever the condition holds; `track: false` opts out of
  // applied-guideline tracking, which amounts to the same for matching.
  ...(g.continuous === true || g.metadata?.['continuous'] === true || g.track === false ? { continuous: true } : {}),
  ...(g.tags ? { tags: g.tags } : {}),
  ...(g.journey_id ? { journey_id: g.journey_id } : {}),
  ...(g.journey_step ? { journey_step: g.journey_step } : {}),
});

/** What the turn's extras need to know of each guideline of the agent. */
export interface TurnGuideline {
  id: string;
  tags?: readonly string[];
  composition_mode?: CompositionMode;
  /** Agent tool names and `service:tool` ids. */
  tools?: readonly string[];
}

export const TURN_EXTRAS = Symbol.for('tenet.gateway.turn-extras');

/** The agent's matching and composition resources beyond its guidelines. */
export interface TurnExtras {
  relationships: NonNullable<MatchGuidelinesRequestV1['relationships']>;
  tools: NonNullable<MatchGuidelinesRequestV1['tools']>;
  /** How each of `tools` runs (same names). */
  runnableTools: RunnableTool[];
  settings?: MatchGuidelinesRequestV1['settings'];
  llm?: MatchGuidelinesRequestV1['llm'];
  cannedResponses: NonNullable<ComposeReplyRequestV1['canned_responses']>;
  noMatchMessage?: string;
}

export interface TurnExtrasSource {
  /** `defs` screens each stored definition read for the turn (turn-definitions.ts). */
  forTurn(agentId: string, guidelines: readonly TurnGuideline[], defs: TurnDefinitions): Promise<TurnExtras>;
}

const compositionModeOf = (mode: string | undefined): CompositionMode => ((COMPOSITION_MODES as readonly string[]).includes(mode ?? '') ? (mode as CompositionMode) : 'fluid');

/** Context-variable values usable as template fields (`{{name}}`): strings and numbers as they are. */
const fieldValues = (values: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).flatMap(([k, v]) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [[k, String(v)]] : [])));

/** Parlant's limit on tool-call rounds in one turn (each round re-evaluates the guidelines with the results). */
const MAX_TOOL_ROUNDS = 3;

/**
 * One conversation turn, as Parlant runs it: acknowledged → processing → the matcher scores the agent's
 * guidelines (seed 000 §8) → typing → the matcher composes the reply from the matched actions → agent message
 * → ready, listing the matched guidelines with their scores and the tokens each call used.
 *
 * The gateway orchestrates and the matcher computes: both matcher steps are requests on the bus, answered by
 * one replica of the matcher's queue group (or in-process all-in-one). Turns of a session are serialized by
 * a lease in the shared event log, and a turn is superseded by any newer customer message in the session —
 * checked before each step against the log, so it holds across gateway processes (ADR 0007). A superseded
 * turn appends `cancelled` and nothing more.
 */
@Injectable()
export class TurnService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TurnService.name);
  private readonly running = new Map<string, Set<Promise<void>>>();
  /** `session:trigger offset` of the turns running in this process (the recovery sweep closes this process's others). */
  private readonly runningTurns = new Set<string>();
  private readonly leases: TurnLeases;
  private readonly recovery: TurnRecovery;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly timing: TurnTiming = turnTimingFrom(process.env);
  private readonly definitions = new DefinitionScreen(this.logger);

  constructor(
    private readonly events: SessionEventsService,
    private readonly sessions: SessionsRepository,
    private readonly agents: AgentsRepository,
    private readonly usage: UsageStreamSink,
    private readonly context: TurnContext,
    @Inject(TURN_EXTRAS) private readonly extras: TurnExtrasSource,
    @Inject(GUIDELINE_SOURCE) private readonly guidelines: GuidelineSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly timers: SessionTimers,
    private readonly budgets: AgentBudgets,
    private readonly budgetExhaustion: BudgetExhaustion,
    @Optional() private readonly metrics?: TenetMetrics,
    @Optional() @Inject(TOOL_RUNNER) private readonly tools?: ToolRunner,
    @Optional() private readonly journeyTurns?: TurnJourneys,
    @Optional() private readonly memory?: TurnMemory,
    @Optional() private readonly workspaces?: WorkspaceDirectory,
  ) {
    this.leases = new TurnLeases(store, bus, `${hostname()}-${process.pid}-${newId(6)}`, { ttlMs: turnLeaseTtlFrom(process.env) });
    this.recovery = new TurnRecovery(store, this.leases, (id, value, data, correlationId) => this.events.append(id, { kind: 'status', source: 'ai_agent', status: value, data }, correlationId));
  }

  /** Heartbeat, then close the turns dead gateways left unfinished — now and every lease TTL (turn-recovery.ts). */
  async onModuleInit(): Promise<void> {
    await this.leases.start();
    const sweep = (): Promise<void> =>
      this.recovery.sweep((sessionId, offset) => this.runningTurns.has(`${sessionId}:${offset}`)).then(
        (closed) => void (closed > 0 && this.logger.warn(`closed ${closed} turn(s) left unfinished by a stopped gateway`)),
        (error: unknown) => this.logger.error(`turn recovery failed: ${String(error)}`),
      );
    await sweep();
    this.sweeper = setInterval(() => void sweep(), this.leases.ttlMs);
    this.sweeper.unref();
  }

  /** On shutdown, running turns finish (their events are appended) before the platform closes the log. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.running.values()].flatMap((turns) => [...turns]));
    await this.leases.stop();
  }

  /**
   * Starts a turn for the customer message and returns at once; the turn's events follow on the session. The turn
   * begins in the loop's next check phase, after the accepting request has written its response: started in the
   * same tick, its first store calls and the provider's answer resolved as microtasks ahead of the response and
   * held the POST (4.9 ms p50 on an idle all-in-one host, bench:turn load mode, for a 0.5 ms /healthz).
   */
  start(sessionId: string, trigger: EventView): void {
    // One trace per turn: the matcher's spans join it through the trace headers of its requests.
    const turn = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => traced('tenet.turn', { 'tenet.session_id': sessionId, 'tenet.correlation_id': trigger.correlation_id }, () => inBackground(() => this.run(sessionId, trigger))))
      .catch((error: unknown) => this.logger.error(`turn for session ${sessionId} failed: ${redactSecrets(String(error))}`));
    const turns = this.running.get(sessionId) ?? new Set();
    turns.add(turn);
    this.running.set(sessionId, turns);
    void turn.finally(() => {
      turns.delete(turn);
      if (turns.size === 0 && this.running.get(sessionId) === turns) this.running.delete(sessionId);
    });
  }

  /** Resolves when no turn started by this process is running for the session (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    for (let turns = this.running.get(sessionId); turns?.size; turns = this.running.get(sessionId)) await Promise.all([...turns]);
  }

  private async run(sessionId: string, trigger: EventView): Promise<void> {
    const key = `${sessionId}:${trigger.offset}`;
    this.runningTurns.add(key);
    try {
      await this.runTurn(sessionId, trigger);
    } finally {
      this.runningTurns.delete(key);
    }
  }

  private async runTurn(sessionId: string, trigger: EventView): Promise<void> {
    const correlationId = trigger.correlation_id;
    const status = (value: string, data: Record<string, unknown> = {}) =>
      this.events.append(sessionId, { kind: 'status', source: 'ai_agent', status: value as 'ready', data }, correlationId);
    await this.recovery.opened(sessionId, trigger.offset, correlationId);
    const total = this.metrics?.turnDuration.startTimer({ stage: 'total' });
    await status('acknowledged');
    const lease = await this.leases.acquire(sessionId, trigger.offset);
    // One deadline for the matcher steps; a newer customer message cancels the step in flight (turn-deadline.ts).
    const deadline = new TurnDeadline(this.bus, this.timing);
    let outcome = 'error';
    const budgetHold: { release?: () => Promise<void> } = {};
    try {
      await deadline.cancelWhen(sessionAppendedSubject(sessionId), () => this.supersededAfter(sessionId, trigger.offset));
      outcome = await this.steps(sessionId, trigger, status, lease, deadline, budgetHold);
    } catch (error) {
      if (error instanceof TurnCancelled) {
        outcome = 'cancelled';
        await status('cancelled');
      } else if (budgetRefusalOf(error)) {
        // A spent token budget: the matcher made no call; the agent answers with its budget message (ADR 0019).
        outcome = await this.budgetExhaustion.answer(sessionId, error, correlationId);
      } else if (error instanceof ToolCallFailedError) {
        // An expected end of a turn (the tool does not allow failure), not a fault of the gateway.
        await status('error', { exception: error.message, tool_id: error.toolId, code: error.error.code });
      } else {
        // The customer sees a code and a generic sentence; the detail (redacted) is logged by `start`.
        await status('error', customerFacingError(error));
        throw error;
      }
    } finally {
      await budgetHold.release?.();
      await deadline.stop();
      await lease.release(outcome);
      await this.recovery.closed(sessionId, trigger.offset, outcome);
      total?.();
      this.metrics?.turnsTotal.inc({ outcome });
    }
  }

  private async steps(
    sessionId: string,
    trigger: EventView,
    status: (value: string, data?: Record<string, unknown>) => Promise<EventView>,
    lease: HeldLease,
    deadline: TurnDeadline,
    budgetHold: { release?: () => Promise<void> },
  ): Promise<string> {
    const checkpoint = async (): Promise<void> => {
      await lease.assertHeld();
      if (await this.supersededAfter(sessionId, trigger.offset)) throw new TurnCancelled();
      // Hand-off: once the session left `auto` (manual, paused) the agent does not reply.
      if ((await this.sessions.get(sessionId))?.view.mode !== 'auto') throw new TurnCancelled();
    };
    await checkpoint();
    const session = await this.sessions.get(sessionId);
    const agent = session && (await this.agents.get(session.view.agent_id));
    if (!session || !agent) throw new Error(`session ${sessionId} or its agent no longer exists`);
    await status('processing');
    const started = performance.now();
    const billed = (calls: CallUsageV1[]) => this.meter(agent.id, sessionId, calls);

    // Only the tail of the session before the customer message: the last messages and the applied-guideline
    // set, read backwards as far as needed (turn-history.ts), so a turn costs the same on a long session.
    // The agent's max_history_length (at most 1000, its documented maximum), narrowed by the session's max_messages.
    const tail = await readTurnTail(this.store, sessionId, trigger.offset, Math.min(agent.config.max_history_length, session.view.config.max_messages), session.edits);
    const message = String((trigger.data as { message?: unknown }).message ?? '');
    const turnHistory = tail.messages.map((e) => ({ role: (e.source === 'customer' ? 'customer' : 'agent') as 'customer' | 'agent', content: String((e.data as { message?: unknown }).message ?? '') }));
    // Every stored setting acts: the prompt reaches both model calls; temperature and max_tokens shape the reply.
    const agentRef = {
      id: agent.id,
      name: agent.name,
      ...(agent.description ? { description: agent.description } : {}),
      ...(agent.system_prompt ? { system_prompt: agent.system_prompt } : {}),
      temperature: agent.config.temperature,
      max_tokens: agent.config.max_tokens,
      ...(agent.soul ? { soul: agent.soul } : {}),
    };
    // Every stored definition is checked before it goes into a request: a bad one is left out and flagged on
    // `ready`, so it cannot fail the turns of every agent it applies to (turn-definitions.ts).
    const defs = this.definitions.forTurn();
    const agentGuidelines = await this.guidelines.forAgent(agent.id, (g) => defs.usable('guideline', g, guidelineItem));
    const guidelines = agentGuidelines.map(guidelineItem);
    const budgetScopes = await this.budgets.scopesFor(agent, sessionId);
    // The session's journeys (turn-journeys.ts): their pending conditions are evaluated in the same match call.
    const journeys = await this.journeyTurns?.begin(agent, session.view, defs);
    const journeyGuidelines = journeys?.guidelines() ?? [];
    guidelines.push(...journeyGuidelines);
    const [contextValues, terms, extras] = await Promise.all([
      this.context.values(agent.id, session.view.customer_id, defs, { sessionId, traceId: trigger.correlation_id, timeoutSecs: agent.config.tool_timeout_secs, now: new Date() }),
      this.context.glossary(agent.id, defs),
      this.extras.forTurn(agent.id, [...agentGuidelines, ...journeyGuidelines], defs),
    ]);
    // A budgeted turn reserves its whole estimate before its first call: one that cannot afford it is refused up
    // front with the exhausted reply, instead of spending its matching calls and being refused at composing.
    let budget: BudgetScopeV1[] | undefined;
    if (budgetScopes) {
      const material = JSON.stringify([agentRef, turnHistory, message, guidelines, terms, extras.tools, extras.cannedResponses]).length;
      const tokens = turnTokenEstimate(material, agent.config.max_tokens);
      const usd = microUsd(extras.llm?.provider && extras.llm.model ? this.usage.costOf(extras.llm.provider, extras.llm.model, tokens - agent.config.max_tokens, agent.config.max_tokens) : 0);
      const hold = await this.budgets.holdTurn(`turn-${trigger.id}`, budgetScopes, { tokens, usd });
      budgetHold.release = hold.release;
      budget = hold.scopes;
    }
    const matchResults: MatchGuidelinesReplyV1['result'][] = [];
    const topN = extras.settings?.top_n ?? defaultMatchingOptions.topN;
    // Recall and extraction run alongside matching (turn-memory.ts); composing waits for them.
    const memory = this.memory?.begin({ agent, ...(extras.llm ? { llm: extras.llm } : {}), ...(budget ? { budget } : {}), sessionId, customerId: session.view.customer_id, messageId: trigger.id, message, history: turnHistory, deadline, billed, now: () => new Date() });
    const matchTimer = this.metrics?.turnDuration.startTimer({ stage: 'match' });
    const match = (toolResults: readonly ToolOutcome[]) => deadline.request<MatchGuidelinesReplyV1, MatchGuidelinesRequestV1>(
      MATCHER_MATCH_SUBJECT,
      {
        session_id: sessionId,
        agent: agentRef,
        message,
        history: turnHistory,
        guidelines,
        context: contextValues,
        previously_applied: tail.previouslyApplied,
        terms,
        ...(extras.relationships.length > 0 ? { relationships: extras.relationships } : {}),
        ...(extras.tools.length > 0 ? { tools: extras.tools } : {}),
        ...(extras.settings ? { settings: extras.settings } : {}),
        ...(extras.llm ? { llm: extras.llm } : {}),
        ...(toolResults.length > 0 ? { tool_results: [...toolResults] } : {}),
        ...(journeys?.activeJourney ? { active_journey: journeys.activeJourney } : {}),
        ...(budget ? { budget: { scopes: budget } } : {}),
      },
      billed,
      traceHeaders(),
    ).then((reply) => {
      // Journey conditions are evaluated, then left out of the ranking: they have no action to take a top-N place with.
      matchResults.push(reply.result);
      return journeys ? { ...reply, result: journeys.withoutConditions(reply.result, topN) } : reply;
    });
    let matched = await match([]);
    matchTimer?.();
    const calls = await this.meter(agent.id, sessionId, matched.calls ?? (matched.usage ? [matched.usage] : []));
    await checkpoint();

    // Tool rounds, as Parlant runs them: call what the matched guidelines ask for, then re-evaluate the guidelines
    // with the results, until no new call is asked for (at most MAX_TOOL_ROUNDS, or the agent's engine iterations).
    const runnable = new Map(extras.runnableTools.map((t) => [t.name, t]));
    const toolResults: ToolOutcome[] = [];
    const toolCalls: TurnToolCall[] = [];
    const toolIssues: { tool_name: string; problem: string }[] = [];
    const asked = new Set<string>();
    for (let round = 0; round < Math.min(MAX_TOOL_ROUNDS, agent.max_engine_iterations); round++) {
      const wanted = (matched.result.disambiguation ? [] : matched.result.tools_to_execute).filter((t) => !asked.has(JSON.stringify([t.tool_name, t.parameters ?? {}])));
      wanted.forEach((t) => asked.add(JSON.stringify([t.tool_name, t.parameters ?? {}])));
      const runs = this.runnableCalls(wanted, runnable, toolIssues);
      if (runs.length === 0) break;
      await status('processing', { stage: 'awaiting_tool', tool_ids: runs.map((r) => r.toolId) });
      const results = await this.callTools(sessionId, trigger.correlation_id, agent.id, runs, toolCalls, toolResults);
      const fatal = runs.findIndex((r, i) => results[i]?.status === 'failed' && !r.tool.allow_failure);
      if (fatal >= 0) throw new ToolCallFailedError(runs[fatal]?.toolId ?? '', results[fatal]?.error ?? { code: 'TOOLS.FAILED', message: 'failed' });
      await checkpoint();
      matched = await match(toolResults);
      calls.push(...(await this.meter(agent.id, sessionId, matched.calls ?? (matched.usage ? [matched.usage] : []))));
      await checkpoint();
    }

    // Recall and extraction ran alongside matching; what this message told us counts for the journey's required context.
    const remembered = await memory?.forCompose();
    calls.push(...(remembered?.calls ?? []));

    // Journeys move on what the matcher evaluated; a tool step reached runs through the executor (turn-journeys.ts).
    let journey: JourneyProgress | undefined;
    if (journeys) {
      journey = await journeys.advance((request) => deadline.request<AdvanceJourneysReplyV1, AdvanceJourneysRequestV1>(JOURNEYS_ADVANCE_SUBJECT, request, async () => undefined, traceHeaders()), {
        correlationId: trigger.correlation_id,
        matches: matchResults,
        context: { ...contextValues, ...remembered?.fieldValues },
        now: Date.now(),
        runTool: async (name, args) => {
          const [run] = this.runnableCalls([{ tool_name: name, parameters: args }], runnable, toolIssues);
          if (!run) return undefined;
          const parameters = ((run.tool.parameters as { properties?: Record<string, unknown> }).properties ?? {}) as Record<string, unknown>;
          // Only the tool's own parameters: the context holds every variable of the customer.
          const picked = { ...run, args: Object.fromEntries(Object.entries(args).filter(([k]) => k in parameters)) };
          const [result] = await this.callTools(sessionId, trigger.correlation_id, agent.id, [picked], toolCalls, toolResults);
          return result ? { tool_id: run.toolId, status: result.status, result: result.result?.data ?? null } : undefined;
        },
      });
      await checkpoint();
    }

    await status('typing');
    const top = matched.result.top_matches;
    const byId = new Map(agentGuidelines.map((g) => [g.id, g]));
    // Parlant: the most restrictive canned mode a matched guideline (or the active journey) asks for overrides the agent's own.
    const compositionMode = effectiveCompositionMode(compositionModeOf(agent.composition_mode), [...top.map((m) => byId.get(m.guideline_id)?.composition_mode), journey?.composition_mode]);
    const disambiguation = matched.result.disambiguation;
    const capabilities = await this.context.capabilities(agent.id, defs);
    const composeTimer = this.metrics?.turnDuration.startTimer({ stage: 'compose' });
    const reply = await deadline.request<ComposeReplyReplyV1, ComposeReplyRequestV1>(
      MATCHER_COMPOSE_SUBJECT,
      {
        session_id: sessionId,
        agent: agentRef,
        message,
        history: turnHistory,
        matched: disambiguation ? [] : [...top.flatMap((m) => (m.action ? [{ guideline_id: m.guideline_id, action: m.action }] : [])), ...(journey?.instruction ? [journey.instruction] : [])],
        composition_mode: compositionMode,
        ...(extras.cannedResponses.length > 0 ? { canned_responses: extras.cannedResponses } : {}),
        field_values: { ...fieldValues(contextValues), ...remembered?.fieldValues, ...toolFieldValues(toolResults) },
        ...remembered?.compose,
        ...(toolResults.length > 0 ? { tool_results: toolResults } : {}),
        ...(terms.length > 0 ? { terms } : {}),
        ...(disambiguation ? { disambiguation: { candidates: disambiguation.candidates.map((id) => ({ guideline_id: id, condition: byId.get(id)?.condition ?? id })) } } : {}),
        ...(extras.noMatchMessage ? { no_match_message: extras.noMatchMessage } : {}),
        ...(extras.llm ? { llm: extras.llm } : {}),
        ...(capabilities.length > 0 ? { capabilities } : {}),
        ...(budget ? { budget: { scopes: budget } } : {}),
      },
      billed,
      traceHeaders(),
    );
    composeTimer?.();
    calls.push(...(await this.meter(agent.id, sessionId, reply.calls ?? [reply.usage])));
    await checkpoint();

    const applied = appliedAfterReply(top as GuidelineMatch[], reply.cited_guideline_ids);
    await this.events.append(sessionId, { kind: 'message', source: 'ai_agent', message: reply.message, participant: { id: agent.id, display_name: agent.name }, data: memory?.messageData(reply.cited_chunk_ids) }, trigger.correlation_id);
    await status('ready', {
      matched_guidelines: top.map((m) => ({ guideline_id: m.guideline_id, score: m.relevance_score, priority: m.priority, criticality: m.criticality, reasoning: m.reasoning })),
      guideline_match_result: matched.result,
      cited_guideline_ids: reply.cited_guideline_ids,
      // Parlant's response analysis: the matched guidelines this reply applied; non-continuous ones are not re-applied.
      applied_guideline_ids: applied,
      // Tenet extension: the session's applied set so far, so the next turn need not scan every earlier `ready`.
      [SESSION_APPLIED_FIELD]: [...new Set([...tail.previouslyApplied, ...applied])],
      ...(reply.canned_response_id ? { canned_response_id: reply.canned_response_id } : {}),
      ...(reply.capability_ids ? { capability_ids: reply.capability_ids } : {}),
      usage: calls.map(({ purpose, provider, model, input_tokens, output_tokens, cost_estimate_usd, fallback_from }) => ({ purpose, provider, model, input_tokens, output_tokens, cost_estimate_usd, ...(fallback_from ? { fallback_from } : {}) })),
      provenance: { ...(matched.provenance ?? {}), composition_mode: compositionMode },
      turn_time_ms: Math.round(performance.now() - started),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(toolIssues.length > 0 ? { tool_issues: toolIssues } : {}),
      ...(journey ? journeyReadyFields(journey) : {}),
      served_by: { match: matched.served_by, compose: reply.served_by },
      ...memory?.readyData(),
      // Tenet extension: stored definitions this turn left out because they break the turn's contracts.
      ...(defs.skipped.length > 0 ? { skipped_definitions: defs.skipped } : {}),
    });
    await this.afterReply(sessionId, top.map((m) => byId.get(m.guideline_id)));
    return 'ready';
  }

  /**
   * After the reply: the session waits for the customer (seed 000 §7 AwaitingInput), and a matched guideline
   * with `metadata.handoff: true` hands the session to a human (mode `manual`, published as mode_changed).
   */
  private async afterReply(sessionId: string, matched: readonly ({ id: string; metadata?: Record<string, unknown> } | undefined)[]): Promise<void> {
    await this.timers.awaitInput(sessionId);
    const handoff = matched.find((g) => g?.metadata?.['handoff'] === true);
    if (handoff) await this.sessions.change(sessionId, (record) => ({ events: modeChange(record, 'manual', 'guideline', handoff.id), result: undefined }));
  }

  /**
   * The calls the matcher asked for that can run; the others are reported (`tool_issues` on `ready`): a tool
   * with nowhere to run is never silently skipped.
   */
  private runnableCalls(wanted: readonly WantedCall[], runnable: ReadonlyMap<string, RunnableTool>, issues: { tool_name: string; problem: string }[]) {
    return wanted.flatMap((call) => {
      const tool = runnable.get(call.tool_name);
      if (!tool?.service || !tool.tool_name) {
        issues.push({ tool_name: call.tool_name, problem: tool?.unrunnable ?? 'the agent has no tool of this name' });
        this.logger.warn(`tool ${call.tool_name} was asked for but cannot run: ${tool?.unrunnable ?? 'unknown tool'}`);
        return [];
      }
      return [{ toolId: `${tool.service.name}:${tool.tool_name}`, tool: { ...tool, service: tool.service, tool_name: tool.tool_name }, args: call.parameters ?? {} }];
    });
  }

  /**
   * Runs tool calls through the executor and records them as one `tool` event in Parlant's shape (each result,
   * or the error in its metadata); `calls` and `outcomes` collect them for `ready` and the model.
   */
  private async callTools(
    sessionId: string,
    correlationId: string,
    agentId: string,
    runs: ReturnType<TurnService['runnableCalls']>,
    calls: TurnToolCall[],
    outcomes: ToolOutcome[],
  ): Promise<Awaited<ReturnType<typeof runToolCall>>[]> {
    const workspaceId = await this.workspaces?.ownerOf('agents', agentId);
    const results = await Promise.all(runs.map((r) => runToolCall(this.tools, r.tool, r.args, { sessionId, traceId: correlationId, agentId, ...(workspaceId !== undefined ? { workspaceId } : {}) })));
    await this.events.append(
      sessionId,
      {
        kind: 'tool',
        source: 'ai_agent',
        data: {
          tool_calls: runs.map((r, i) => {
            const result = results[i];
            return {
              tool_id: r.toolId,
              arguments: r.args,
              result: result?.status === 'succeeded' && result.result ? result.result : { data: null, metadata: { error: result?.error ?? { code: 'TOOLS.FAILED', message: 'failed' } }, control: {} },
            };
          }),
        },
      },
      correlationId,
    );
    runs.forEach((r, i) => {
      const result = results[i];
      if (!result) return;
      calls.push({ tool_id: r.toolId, arguments: r.args, status: result.status, attempts: result.attempts, duration_ms: result.duration_ms, replayed: result.replayed, ...(result.error ? { error: result.error } : {}) });
      outcomes.push(toOutcome(r.toolId, r.args, result));
    });
    return results;
  }

  /** Records each call's tokens in the log (published to metering by the relay) with its estimated cost. */
  private async meter(agentId: string, sessionId: string, usage: readonly CallUsageV1[]): Promise<(CallUsageV1 & { cost_estimate_usd: number })[]> {
    const priced: (CallUsageV1 & { cost_estimate_usd: number })[] = [];
    for (const call of usage) priced.push({ ...call, cost_estimate_usd: await this.usage.recordCall(agentId, sessionId, call) });
    if (usage.length > 0) await this.budgets.afterCalls(agentId, sessionId);
    return priced;
  }

  /** A newer customer message supersedes the turn (Parlant's behaviour), whichever gateway received it. */
  private async supersededAfter(sessionId: string, offset: number): Promise<boolean> {
    // Run on every append to the session while a turn runs: only messages are read (the store drops the rest unparsed).
    const later = await this.store.readStream(sessionStreamId(sessionId), { fromOffset: offset + 1, types: ['message'] });
    return later.some((event) => (event.data as SessionEventData).source === 'customer');
  }
}

/** Parlant's journey fields on `ready` (`matched_journeys`, `journey_states`) and Tenet's explanation of the step. */
function journeyReadyFields(journey: JourneyProgress): Record<string, unknown> {
  return {
    matched_journeys: journey.matched,
    journey_states: journey.states,
    ...(journey.events.length > 0 ? { journey_events: journey.events } : {}),
    ...(journey.active ? { active_journey: journey.active } : {}),
    ...(Object.keys(journey.evaluated).length > 0 ? { journey_conditions: journey.evaluated } : {}),
    ...(journey.tool_step ? { journey_tool_step: journey.tool_step } : {}),
    ...(journey.rejected.length > 0 ? { journey_rejections: journey.rejected } : {}),
  };
}
