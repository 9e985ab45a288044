import { Inject, Injectable, Optional } from '@nestjs/common';
import type { BudgetScopeV1, CallUsageV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { microUsd } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AGENT_DEFINITIONS, type AgentDefinitionSource, type AgentView } from '@tenet/catalog-data-access';
import { AgentBudgets, turnTokenEstimate } from '@tenet/metering-http';
import { SessionsRepository, type EventView, type SessionRecord } from '@tenet/session-data-access';
import { TurnContext } from './turn-context.js';
import type { TurnDeadline } from './turn-deadline.js';
import { DefinitionScreen, type TurnDefinitions } from './turn-definitions.js';
import { readTurnTail, type TurnTail } from './turn-history.js';
import { TurnJourneys, type JourneyTurn } from '@tenet/journeys-client';
import { TurnMemory, type TurnMemoryRun } from '@tenet/memory-client';
import { INTENT_TURNS, type IntentTurnPort, type IntentTurnsPort } from './intents.port.js';
import { TurnMeter, type PricedCall } from './turn-meter.js';
import { guidelineItem, TURN_EXTRAS, type SourcedGuideline, type TurnExtras, type TurnExtrasSource } from './turn-ports.js';

/** Everything a turn reads before its first model call; the runner's requests are built from it. */
export interface PreparedTurn {
  sessionId: string;
  trigger: EventView;
  session: SessionRecord;
  agent: AgentView;
  tail: TurnTail;
  message: string;
  history: { role: 'customer' | 'agent'; content: string }[];
  agentRef: MatchGuidelinesRequestV1['agent'];
  defs: TurnDefinitions;
  agentGuidelines: SourcedGuideline[];
  guidelines: MatchGuidelinesRequestV1['guidelines'];
  journeys: JourneyTurn | undefined;
  /** The agent's intents in this turn (ADR 0031); undefined when it has none or a journey leads. */
  intents: IntentTurnPort | undefined;
  contextValues: Record<string, unknown>;
  terms: NonNullable<MatchGuidelinesRequestV1['terms']>;
  extras: TurnExtras;
  budget: BudgetScopeV1[] | undefined;
  memory: TurnMemoryRun | undefined;
  /** `performance.now()` when processing began. */
  started: number;
  /** Meters the calls a step was billed for. */
  billed: (calls: CallUsageV1[]) => Promise<PricedCall[]>;
}

/** Releases the turn's budget hold (once the turn ends, whatever its outcome). */
export interface BudgetHold {
  release?: () => Promise<void>;
}

const agentRefOf = (agent: AgentView): MatchGuidelinesRequestV1['agent'] => ({
  id: agent.id,
  name: agent.name,
  ...(agent.description ? { description: agent.description } : {}),
  ...(agent.system_prompt ? { system_prompt: agent.system_prompt } : {}),
  temperature: agent.config.temperature,
  max_tokens: agent.config.max_tokens,
  ...(agent.soul ? { soul: agent.soul } : {}),
});

/**
 * The turn's reads before matching: the session's tail, the agent's definitions (each screened, so one bad
 * definition cannot fail every turn it applies to), its journeys and context, and a budget hold. Memory
 * (recall, extraction) starts here and runs alongside matching.
 */
@Injectable()
export class TurnPreparation {
  constructor(
    private readonly sessions: SessionsRepository,
    @Inject(AGENT_DEFINITIONS) private readonly agentDefinitionSource: AgentDefinitionSource,
    private readonly context: TurnContext,
    private readonly definitions: DefinitionScreen,
    private readonly budgets: AgentBudgets,
    private readonly meter: TurnMeter,
    @Inject(TURN_EXTRAS) private readonly extras: TurnExtrasSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() private readonly journeyTurns?: TurnJourneys,
    @Optional() private readonly memory?: TurnMemory,
    @Optional() @Inject(INTENT_TURNS) private readonly intentTurns?: IntentTurnsPort,
  ) {}

  /** The session and its agent; `processing` is announced by `onLoaded` once both exist. */
  async prepare(
    sessionId: string,
    trigger: EventView,
    deadline: TurnDeadline,
    hold: BudgetHold,
    onLoaded: () => Promise<unknown>,
  ): Promise<PreparedTurn> {
    const session = await this.sessions.get(sessionId);
    // The agent's definitions as of now, from its snapshot (one read of the log when none changed).
    const current = session && (await this.agentDefinitionSource.forTurn(session.view.agent_id));
    if (!session || !current) throw new Error(`session ${sessionId} or its agent no longer exists`);
    const { agent } = current;
    await onLoaded();
    const started = performance.now();
    const billed = (calls: CallUsageV1[]) => this.meter.record(agent.id, sessionId, calls);
    const conversation = await this.conversation(sessionId, trigger, session, agent);
    const defs = this.definitions.forTurn(current);
    const definitions = await this.agentDefinitions(sessionId, trigger, session, agent, defs, conversation.tail);
    const agentRef = current.derived('agentRef', () => agentRefOf(agent));
    const turn: Omit<PreparedTurn, 'budget' | 'memory'> = {
      sessionId,
      trigger,
      session,
      agent,
      ...conversation,
      agentRef,
      defs,
      ...definitions,
      started,
      billed,
    };
    const budget = await this.holdBudget(turn, hold);
    const memory = this.memory?.begin({
      agent,
      sessionConfig: session.view.config,
      ...(turn.extras.llm ? { llm: turn.extras.llm } : {}),
      ...(budget ? { budget } : {}),
      sessionId,
      customerId: session.view.customer_id,
      messageId: trigger.id,
      message: turn.message,
      history: turn.history,
      deadline,
      billed,
      now: () => new Date(),
    });
    return { ...turn, budget, memory };
  }

  /**
   * Only the tail of the session before the customer message: the last messages and the applied-guideline set,
   * read backwards as far as needed (turn-history.ts), so a turn costs the same on a long session. The agent's
   * max_history_length (at most 1000, its documented maximum), narrowed by the session's max_messages.
   */
  private async conversation(sessionId: string, trigger: EventView, session: SessionRecord, agent: AgentView) {
    const tail = await readTurnTail(
      this.store,
      sessionId,
      trigger.offset,
      Math.min(agent.config.max_history_length, session.view.config.max_messages),
      session.edits,
    );
    const message = String((trigger.data as { message?: unknown }).message ?? '');
    const history = tail.messages.map((e) => ({
      role: (e.source === 'customer' ? 'customer' : 'agent') as 'customer' | 'agent',
      content: String((e.data as { message?: unknown }).message ?? ''),
    }));
    return { tail, message, history };
  }

  /** The agent's guidelines (with its journeys' pending conditions), context values, glossary and other resources. */
  private async agentDefinitions(
    sessionId: string,
    trigger: EventView,
    session: SessionRecord,
    agent: AgentView,
    defs: TurnDefinitions,
    tail: TurnTail,
  ) {
    // The guidelines of the agent's workspace that apply to it (the snapshot's), each screened (once per definition).
    const agentGuidelines: SourcedGuideline[] = defs.current.guidelines.filter((g) => defs.usable('guideline', g, guidelineItem));
    const guidelines = agentGuidelines.map(guidelineItem);
    // The session's journeys (turn-journeys.ts): their pending conditions are evaluated in the same match call.
    const journeys = await this.journeyTurns?.begin(agent, session.view, defs);
    const journeyGuidelines = journeys?.guidelines() ?? [];
    guidelines.push(...journeyGuidelines);
    // Intents (ADR 0031): classified in the matching call; their `service:tool` targets become runnable tools.
    const intents = await this.intentTurns?.begin(agent.id, tail.messages, journeys?.activeJourney !== undefined);
    const [contextValues, terms, extras] = await Promise.all([
      this.context.values(agent.id, session.view.customer_id, defs, {
        sessionId,
        traceId: trigger.correlation_id,
        timeoutSecs: agent.config.tool_timeout_secs,
        now: new Date(),
      }),
      this.context.glossary(agent.id, defs),
      this.extras.forTurn(agent.id, [...agentGuidelines, ...journeyGuidelines, ...(intents?.toolHolders() ?? [])], defs),
    ]);
    return { agentGuidelines, guidelines, journeys, intents, contextValues, terms, extras };
  }

  /**
   * A budgeted turn reserves its whole estimate before its first call: one that cannot afford it is refused up
   * front with the exhausted reply, instead of spending its matching calls and being refused at composing.
   */
  private async holdBudget(turn: Omit<PreparedTurn, 'budget' | 'memory'>, hold: BudgetHold): Promise<BudgetScopeV1[] | undefined> {
    const { agent, extras } = turn;
    const scopes = await this.budgets.scopesFor(agent, turn.sessionId);
    if (!scopes) return undefined;
    const material = JSON.stringify([
      turn.agentRef,
      turn.history,
      turn.message,
      turn.guidelines,
      turn.terms,
      extras.tools,
      extras.cannedResponses,
    ]).length;
    const tokens = turnTokenEstimate(material, agent.config.max_tokens);
    const usd = microUsd(
      extras.llm?.provider && extras.llm.model
        ? this.meter.costOf(extras.llm.provider, extras.llm.model, tokens - agent.config.max_tokens, agent.config.max_tokens)
        : 0,
    );
    const held = await this.budgets.holdTurn(`turn-${turn.trigger.id}`, scopes, { tokens, usd });
    hold.release = held.release;
    return held.scopes;
  }
}
