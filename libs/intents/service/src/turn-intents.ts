import {
  INTENT_RECOGNIZED_EVENT_TYPE,
  intentRecognitionStreamId,
  type IntentRecognizedData,
  type IntentToMatchV1,
  type MatchGuidelinesReplyV1,
} from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { checkArguments, describeProblems } from '@tenet/json-schema';
import {
  CLARIFICATION_NEEDED,
  customerWords,
  decideIntent,
  DEFAULT_INTENT_SETTINGS,
  reportedIntentName,
  type IntentDecision,
  type IntentSettings,
  type IntentView,
} from '@tenet/intents-domain';
import type { TenetMetrics } from '@tenet/observability';
import type { CatalogReferences } from './catalog-references.js';
import type { IntentsRepository } from './intents.repository.js';

type MatchResult = MatchGuidelinesReplyV1['result'];

/** A message event of the session's tail, as the turn reads it (`data.intent` is the agent message's intent). */
export interface TailMessage {
  source?: string;
  data?: unknown;
}

/** The agent's `intents` settings with the defaults filled in. */
export const intentSettingsOf = (stored: Partial<IntentSettings> | null | undefined): IntentSettings => ({
  ...DEFAULT_INTENT_SETTINGS,
  ...(stored ?? {}),
});

/** The alternatives the agent's last message asked the customer to choose from, when it was a clarification question. */
export function pendingClarification(messages: readonly TailMessage[]): string[] | undefined {
  const last = [...messages].reverse().find((m) => m.source === 'ai_agent');
  const intent = (last?.data as { intent?: { name?: unknown; alternatives?: unknown } } | undefined)?.intent;
  if (intent?.name !== CLARIFICATION_NEEDED || !Array.isArray(intent.alternatives)) return undefined;
  const names = intent.alternatives.filter((a): a is string => typeof a === 'string');
  return names.length > 0 ? names : undefined;
}

const toMatch = (intent: IntentView): IntentToMatchV1 => ({
  name: intent.name,
  description: intent.description,
  examples: intent.examples,
  keywords: intent.keywords,
  ...(intent.parameters ? { parameters: intent.parameters } : {}),
});

/**
 * The turn's side of intents (docs/data-model.md#intents), built by `TurnIntents.begin` when the agent has any: what the match
 * request carries, what the classification decides (act / clarify / fall back), and what the turn reports. The
 * turn calls it at five points (listed in ADR 0031) and keeps no intent logic of its own.
 */
export class IntentTurn {
  private decision: IntentDecision | undefined;
  /** Why a recognised intent's tool was not called (its arguments break the tool's schema). */
  private toolSkipped: string | undefined;

  constructor(
    private readonly agentId: string,
    private readonly intents: readonly IntentView[],
    private readonly settings: IntentSettings,
    /** Set when the agent's last message asked which of these the customer meant: only they are classified now. */
    private readonly pending: readonly string[] | undefined,
    private readonly journeyConditions: ReadonlyMap<string, string>,
    private readonly store: EventStore,
    private readonly metrics: TenetMetrics | undefined,
    /** The parameter schema of each intent tool, by tool name (absent: unknown, the turn reports the tool as unrunnable). */
    private readonly toolSchemas: ReadonlyMap<string, Record<string, unknown>> = new Map(),
  ) {}

  /** The intents offered to the matching call: the pending clarification's choices, else all of the agent's. */
  private offered(): IntentView[] {
    const chosen = this.pending ? this.intents.filter((i) => this.pending?.includes(i.name)) : [];
    return chosen.length > 0 ? chosen : [...this.intents];
  }

  /**
   * The intents' tools as the turn's extras read guideline tools (`service:tool` ids are made runnable only for
   * the turn's guidelines that name them): passed with the guidelines to `TurnExtrasSource.forTurn`.
   */
  toolHolders(): { id: string; tools: string[] }[] {
    return this.intents.flatMap((i) => (i.tool ? [{ id: `intent:${i.name}`, tools: [i.tool] }] : []));
  }

  /** Spread into the match request: the first match call classifies; a re-match after tool results does not again. */
  matchFields(toolResults: readonly unknown[]): { intents?: IntentToMatchV1[] } {
    return toolResults.length > 0 ? {} : { intents: this.offered().map(toMatch) };
  }

  /** Decides on the first match result's classification (tool rounds re-match with the same intent; the first counts). */
  decide(result: MatchResult): IntentDecision {
    this.decision ??= decideIntent(result.intent, this.settings, new Set(this.offered().map((i) => i.name)));
    return this.decision;
  }

  private intentOf(name: string): IntentView | undefined {
    return this.intents.find((i) => i.name === name);
  }

  /**
   * The match result the turn acts on: a recognised intent mapped to a tool adds that call (its extracted
   * parameters as arguments, through the turn's normal tool path); while the agent clarifies, nothing runs.
   */
  gate(result: MatchResult): MatchResult {
    const decision = this.decide(result);
    if (decision.kind === 'clarify') return { ...result, tools_to_execute: [] };
    if (decision.kind !== 'recognized') return result;
    const tool = this.intentOf(decision.name)?.tool;
    if (!tool || result.tools_to_execute.some((t) => t.tool_name === tool)) return result;
    // As the matcher does for a guideline's tool: arguments that break the tool's schema (a required order number
    // the customer has not given yet) are not sent; the reply is composed without the tool's result.
    const check = checkArguments(this.toolSchemas.get(tool), decision.extracted_params);
    if (!check.ok) {
      this.toolSkipped = `${tool} not called: ${describeProblems(check.problems)}`;
      return result;
    }
    return {
      ...result,
      tools_to_execute: [
        ...result.tools_to_execute,
        { tool_name: tool, priority: 0, guideline_id: `intent:${decision.name}`, parameters: decision.extracted_params },
      ],
    };
  }

  /**
   * A recognised intent mapped to a journey activates it: as a match of one of the journey's condition
   * guidelines, which is how the journey engine learns a journey applies. Pushed with the turn's match results.
   */
  journeyMatches(): MatchResult[] {
    if (this.decision?.kind !== 'recognized') return [];
    const journeyId = this.intentOf(this.decision.name)?.journey_id;
    const condition = journeyId ? this.journeyConditions.get(journeyId) : undefined;
    if (!condition) return [];
    const match = {
      guideline_id: condition,
      priority: 0,
      relevance_score: this.decision.confidence,
      confidence: this.decision.confidence,
      condition: `intent ${this.decision.name}`,
      tools: [],
      matched_context: {},
      reasoning: `intent ${this.decision.name} recognised`,
    };
    return [{ matches: [match], top_matches: [], tools_to_execute: [], evaluation_time_ms: 0 }];
  }

  /**
   * Spread into the compose request: a clarification question naming the choices in customer words, or — when
   * the message is none of the intents and no guideline or journey has anything to say — the agent's fallback.
   */
  composeFields(somethingApplies: boolean): { clarification?: { alternatives: string[] }; fallback_reply?: string } {
    const decision = this.decision;
    if (decision?.kind === 'clarify')
      return {
        clarification: {
          alternatives: decision.candidates.map((c) => customerWords(this.intentOf(c.name) ?? { name: c.name, description: '' })),
        },
      };
    if (decision?.kind === 'unknown' && !somethingApplies) return { fallback_reply: this.settings.fallback };
    return {};
  }

  /** The agent message's `data.intent` (docs/data-model.md#session-events): name and confidence, and the choices asked about. */
  messageData(): { intent: { name: string; confidence: number; alternatives?: string[] } } | undefined {
    const decision = this.decision;
    if (!decision) return undefined;
    return {
      intent: {
        name: reportedIntentName(decision),
        confidence: decision.confidence,
        ...(decision.kind === 'clarify' ? { alternatives: decision.candidates.map((c) => c.name) } : {}),
      },
    };
  }

  /** The `ready` status's `intent`: the classification and what the turn did with it. */
  readyData(result: MatchResult): { intent: Record<string, unknown> } | undefined {
    const decision = this.decision;
    if (!decision) return undefined;
    const classified = result.intent;
    return {
      intent: {
        name: reportedIntentName(decision),
        outcome: decision.kind,
        confidence: decision.confidence,
        extracted_params: decision.kind === 'recognized' ? decision.extracted_params : {},
        alternatives:
          decision.kind === 'clarify'
            ? decision.candidates
            : decision.kind === 'recognized'
              ? decision.alternatives
              : (classified?.alternatives ?? []),
        ...(classified ? { classified: { name: classified.name, confidence: classified.confidence } } : {}),
        ...(this.pending ? { resolving: this.pending } : {}),
        ...(this.toolSkipped ? { tool_skipped: this.toolSkipped } : {}),
      },
    };
  }

  /** Records the classification (`intent.recognized` on the versioned topics, through the log's relay) and counts it. */
  async record(sessionId: string, correlationId: string): Promise<void> {
    const decision = this.decision;
    if (!decision) return;
    const name = reportedIntentName(decision);
    const intent = decision.kind === 'recognized' ? this.intentOf(decision.name) : undefined;
    const data: IntentRecognizedData = {
      agent_id: this.agentId,
      session_id: sessionId,
      intent: name,
      confidence: decision.confidence,
      outcome: decision.kind,
      alternatives: decision.kind === 'clarify' ? decision.candidates : decision.kind === 'recognized' ? decision.alternatives : [],
      parameter_names: decision.kind === 'recognized' ? Object.keys(decision.extracted_params) : [],
      leads_to: intent?.tool ? { tool: intent.tool } : intent?.journey_id ? { journey_id: intent.journey_id } : null,
      correlation_id: correlationId,
    };
    await this.store.append(intentRecognitionStreamId(this.agentId), [{ type: INTENT_RECOGNIZED_EVENT_TYPE, data }]);
    this.metrics?.intentsRecognized.inc({ agent_id: this.agentId, intent: name, outcome: decision.kind });
  }
}

/** Builds the turn's `IntentTurn` (undefined when the agent has no intents: the turn then runs as before). */
export class TurnIntents {
  constructor(
    private readonly intents: IntentsRepository,
    private readonly catalog: CatalogReferences,
    private readonly store: EventStore,
    private readonly metrics?: TenetMetrics,
  ) {}

  /**
   * `journeyActive`: while a journey leads the conversation its steps ask the questions, and the customer's answers
   * ("my order number is 55555") are not new intents — the turn then classifies nothing (ADR 0031).
   */
  async begin(agentId: string, tail: readonly TailMessage[], journeyActive = false): Promise<IntentTurn | undefined> {
    if (journeyActive) return undefined;
    const intents = await this.intents.forAgent(agentId);
    if (intents.length === 0) return undefined;
    const agent = await this.catalog.agent(agentId);
    const journeyIds = [...new Set(intents.flatMap((i) => (i.journey_id ? [i.journey_id] : [])))];
    const conditions = new Map<string, string>();
    for (const id of journeyIds) {
      const first = await this.catalog.journeyCondition(id);
      if (first) conditions.set(id, first);
    }
    const schemas = new Map<string, Record<string, unknown>>();
    for (const tool of new Set(intents.flatMap((i) => (i.tool ? [i.tool] : [])))) {
      const schema = await this.catalog.toolParameters(agent, tool);
      if (schema) schemas.set(tool, schema);
    }
    return new IntentTurn(
      agentId,
      intents,
      intentSettingsOf(agent?.intents),
      pendingClarification(tail),
      conditions,
      this.store,
      this.metrics,
      schemas,
    );
  }
}
