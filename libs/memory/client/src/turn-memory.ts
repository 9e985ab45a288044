import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { WorkspaceDirectory, RuleViolationError } from '@tenet/edge';
import {
  contextExtractionStream,
  MATCHER_EXTRACT_SUBJECT,
  MEMORY_RECALL_SUBJECT,
  type CallUsageV1,
  type ComposeReplyRequestV1,
  type ExtractContextReplyV1,
  type ExtractContextRequestV1,
  type RecallRequestV1,
  type RecallResponseV1,
} from '@tenet/contracts';
import type { TenetConfig } from '@tenet/config';
import type { EventStore } from '@tenet/event-store';
import {
  clampConfidence,
  mergedFacts,
  normalizedFacts,
  recallSettings,
  scalarFieldValues,
  typedValue,
  type ExtractedFact,
  type RetrievalSettings,
} from '@tenet/memory-domain';
import { extractsContext, TurnCancelled } from '@tenet/session-domain';
import { redactSecrets } from '@tenet/llm';
import { traceHeaders } from '@tenet/observability';
import { EVENT_STORE, TENET_CONFIG } from '@tenet/platform-runtime';
import {
  type ContextVariableView,
  ContextVariablesRepository,
  GUEST_CUSTOMER_ID,
  guestSessionKey,
  scopedToAgent,
} from '@tenet/catalog-data-access';

/**
 * After a failed recall, turns recall for this long with the short probe budget only: a memory store that is down
 * or not deployed costs one full budget, not one per turn — yet the first turn after it comes back recalls again
 * (with nothing answering, a probe fails at once: NATS says "no responders").
 */
export const RECALL_BACKOFF_MS = 3_000;
/** The recall budget of a turn in the backoff window. */
export const RECALL_PROBE_MS = 250;
/** Facts and passages given to the reply, estimated at 4 characters per token (the recall's own budget). */
export const RECALL_MAX_TOKENS = 1_500;
/** Earlier turns given to extraction as context. */
const EXTRACTION_HISTORY = 6;

type Priced = CallUsageV1 & { cost_estimate_usd: number };
type Billed = (calls: CallUsageV1[]) => Promise<Priced[]>;
type KnowledgeHit = RecallResponseV1['sources'][number];

/**
 * The turn's deadline as memory uses it (the session gateway's `TurnDeadline`): a side request within a budget and
 * the turn's end, the calls of a failed request metered through `billed`; a request cancelled by a newer customer
 * message throws `TurnCancelled`.
 */
export interface TurnDeadline {
  readonly at: number;
  requestWithin<TRes, TReq>(
    budgetMs: number,
    subject: string,
    data: TReq,
    billed: (calls: CallUsageV1[]) => Promise<unknown>,
    options?: { cancellable?: boolean; headers?: Record<string, string> },
  ): Promise<TRes>;
}

export interface TurnMemoryInput {
  agent: { id: string; name: string; config: { auto_extract_context?: boolean }; retrieval?: Partial<RetrievalSettings> };
  /** The session's `config.auto_extract`: true / false override the agent's switch, null (or absent) lets it decide. */
  sessionConfig?: { auto_extract: boolean | null };
  llm?: ExtractContextRequestV1['llm'];
  /** The turn's token budgets: the extraction call is charged to them like the matching calls. */
  budget?: NonNullable<ExtractContextRequestV1['budget']>['scopes'];
  sessionId: string;
  customerId: string;
  /** The customer message's event id: where extracted values and facts came from. */
  messageId: string;
  message: string;
  history: { role: 'customer' | 'agent'; content: string }[];
  deadline: TurnDeadline;
  billed: Billed;
  now: () => Date;
}

/** What the turn's memory adds to the compose request and to the reply's events. */
export interface RememberedForReply {
  compose: Pick<ComposeReplyRequestV1, 'facts' | 'knowledge'>;
  /** Values extracted from this message, by variable name (template fields of this reply). */
  fieldValues: Record<string, string>;
  /** Recall's embedding and the extraction call(s), metered. */
  calls: Priced[];
}

export interface ExtractionOutcome {
  stored: { name: string; confidence: number }[];
  rejected: { name: string; reason: string }[];
  facts: number;
}

/**
 * The turn's memory (ADR 0017): started before the matcher call and awaited before composing, so it adds no
 * round trip to the turn's critical path when the match takes longer.
 * - **Recall**: the memory store's `tenet.rpc.v1.memory.recall` — the customer's current facts and the agent's
 *   most relevant knowledge chunks within a token budget — within `TENET_RECALL_BUDGET_MS` (and the turn's
 *   deadline). A memory store that is down costs the reply its memory, not the turn; after a failure turns skip
 *   recall for RECALL_BACKOFF_MS, so a missing memory store does not slow every turn by the budget.
 * - **Extraction** (the session's `config.auto_extract`, else the agent's `auto_extract_context`): ONE matcher call extracts every variable with an
 *   `extraction_prompt` and the customer's facts; values are typed and validated against the variable
 *   (data_type, validation) and stored for the customer with confidence, source_message_id and extracted_at;
 *   `VariableUpdated` and `FactsExtracted` go to the `context-extraction:<customer>` stream, published as
 *   `tenet.v1.memory.<customer>.variable_update` / `.facts_extracted` (the memory store records the facts from
 *   its durable consumer). The guest customer is shared by anonymous sessions: its extractions serve the turn
 *   only and are not stored.
 */
@Injectable()
export class TurnMemory {
  private readonly logger = new Logger(TurnMemory.name);
  private recallBackoffUntil = 0;

  private readonly recallBudgetMs: number;

  constructor(
    private readonly variables: ContextVariablesRepository,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(TENET_CONFIG) config: Pick<TenetConfig, 'get'>,
    @Optional() private readonly workspaces?: WorkspaceDirectory,
  ) {
    this.recallBudgetMs = config.get('TENET_RECALL_BUDGET_MS');
  }

  begin(input: TurnMemoryInput): TurnMemoryRun {
    return new TurnMemoryRun(this, input);
  }

  /** The recalled facts and passages, with recall's billed calls (its query embedding) metered. */
  async recall(input: TurnMemoryInput): Promise<(RecallResponseV1 & { billed?: Priced[] }) | undefined> {
    if (input.message.trim() === '') return undefined;
    const probing = Date.now() < this.recallBackoffUntil;
    const request: RecallRequestV1 = {
      agent_id: input.agent.id,
      ...(input.customerId !== GUEST_CUSTOMER_ID ? { customer_id: input.customerId } : {}),
      session_id: input.sessionId,
      message: input.message.slice(0, 20_000),
      max_tokens: RECALL_MAX_TOKENS,
      ...(input.budget ? { budget: { scopes: input.budget } } : {}),
      ...recallSettings(input.agent.retrieval),
    };
    try {
      // The store searches only the agent's workspace's sources (ADR 0018); without a directory there are no workspaces.
      const workspaceId = await this.workspaces?.ownerOf('agents', input.agent.id);
      if (workspaceId !== undefined) request.workspace_id = workspaceId;
      const budgetMs = probing ? Math.min(RECALL_PROBE_MS, this.recallBudgetMs) : this.recallBudgetMs;
      const recalled = await input.deadline.requestWithin<RecallResponseV1, RecallRequestV1>(
        budgetMs,
        MEMORY_RECALL_SUBJECT,
        request,
        async () => [],
        { headers: traceHeaders() },
      );
      this.recallBackoffUntil = 0;
      const billed = recalled.calls && recalled.calls.length > 0 ? await input.billed(recalled.calls) : [];
      return { ...(await this.ownWorkspaceOnly(workspaceId, recalled)), billed };
    } catch (error) {
      if (error instanceof TurnCancelled) throw error;
      if (!probing)
        this.logger.warn(
          `recall for session ${input.sessionId} failed, replying without memory (the next ${RECALL_BACKOFF_MS} ms of turns wait at most ${RECALL_PROBE_MS} ms for it): ${redactSecrets(String(error))}`,
        );
      this.recallBackoffUntil = Date.now() + RECALL_BACKOFF_MS;
      return undefined;
    }
  }

  /**
   * Keeps the passages of the agent's own workspace by the directory's assignments (ADR 0018): the store already
   * searched only that workspace (`workspace_id`); this is the check that a source's recorded owner agrees, so no
   * other workspace's source grounds (or is cited in) a reply even if the two ever disagreed.
   */
  private async ownWorkspaceOnly(workspaceId: string | undefined, recalled: RecallResponseV1): Promise<RecallResponseV1> {
    if (!this.workspaces || workspaceId === undefined || recalled.sources.length === 0) return recalled;
    const sources = await this.workspaces.visible(workspaceId, 'knowledge-sources', recalled.sources, (s) => s.source_id);
    return sources.length === recalled.sources.length ? recalled : { ...recalled, sources };
  }

  /** The agent's extractable variables: `extraction_prompt` set and in the agent's scope. */
  private async extractable(agentId: string): Promise<ContextVariableView[]> {
    return (await this.variables.list()).filter((v) => v.extraction_prompt !== undefined && scopedToAgent(v.tags, agentId));
  }

  async extract(input: TurnMemoryInput): Promise<{ reply?: ExtractContextReplyV1; variables: ContextVariableView[]; calls: Priced[] }> {
    if (!extractsContext(input.sessionConfig ?? { auto_extract: null }, input.agent.config) || input.message.trim() === '')
      return { variables: [], calls: [] };
    const variables = await this.extractable(input.agent.id);
    const request: ExtractContextRequestV1 = {
      session_id: input.sessionId,
      agent: { id: input.agent.id, name: input.agent.name },
      message: input.message.slice(0, 20_000),
      history: input.history.slice(-EXTRACTION_HISTORY),
      variables: variables.map((v) => ({
        name: v.name,
        extraction_prompt: v.extraction_prompt ?? '',
        ...(v.description ? { description: v.description } : {}),
        ...(v.data_type ? { data_type: v.data_type } : {}),
        ...(v.validation?.allowed_values?.length ? { allowed_values: v.validation.allowed_values } : {}),
      })),
      facts: true,
      ...(input.llm ? { llm: input.llm } : {}),
      ...(input.budget ? { budget: { scopes: input.budget } } : {}),
    };
    let billedOnFailure: Priced[] = [];
    try {
      // Not cancelled by a newer message: what the customer said is remembered even if the reply is superseded.
      const reply = await input.deadline.requestWithin<ExtractContextReplyV1, ExtractContextRequestV1>(
        input.deadline.at - Date.now(),
        MATCHER_EXTRACT_SUBJECT,
        request,
        async (calls) => (billedOnFailure = await input.billed(calls)),
        { cancellable: false, headers: traceHeaders() },
      );
      return { reply, variables, calls: await input.billed(reply.calls ?? (reply.usage ? [reply.usage] : [])) };
    } catch (error) {
      this.logger.warn(`context extraction for session ${input.sessionId} failed, the turn goes on: ${redactSecrets(String(error))}`);
      return { variables, calls: billedOnFailure };
    }
  }

  /** Stores and publishes what was extracted; returns what was kept and what the variables' rules refused. */
  async store(
    input: TurnMemoryInput,
    reply: ExtractContextReplyV1,
    variables: readonly ContextVariableView[],
  ): Promise<{ outcome: ExtractionOutcome; values: Record<string, unknown> }> {
    const byName = new Map(variables.map((v) => [v.name, v]));
    const outcome: ExtractionOutcome = { stored: [], rejected: [], facts: 0 };
    const values: Record<string, unknown> = {};
    const now = input.now();
    const extractedAt = now.toISOString();
    const guest = input.customerId === GUEST_CUSTOMER_ID;
    const events: { type: string; data: Record<string, unknown> }[] = [];
    for (const extracted of reply.values) {
      const variable = byName.get(extracted.name);
      if (!variable || typeof extracted.value !== 'string') continue;
      const data = typedValue(variable, extracted.value);
      if (data === undefined) {
        outcome.rejected.push({ name: variable.name, reason: `value is not a ${variable.data_type ?? 'value'}` });
        continue;
      }
      const confidence = clampConfidence(extracted.confidence);
      try {
        // A guest's values are kept for its session only (the shared guest customer would leak them to the next visitor).
        await this.variables.setValue(variable.id, guest ? guestSessionKey(input.sessionId) : input.customerId, data, now, {
          confidence,
          source_message_id: input.messageId,
          extracted_at: extractedAt,
        });
      } catch (error) {
        if (!(error instanceof RuleViolationError)) throw error;
        outcome.rejected.push({ name: variable.name, reason: error.message });
        continue;
      }
      values[variable.name] = data;
      outcome.stored.push({ name: variable.name, confidence });
      events.push({
        type: 'VariableUpdated',
        data: {
          customerId: input.customerId,
          sessionId: input.sessionId,
          variableId: variable.id,
          name: variable.name,
          value: data,
          confidence,
          sourceMessageId: input.messageId,
          extractedAt,
        },
      });
    }
    const facts = normalizedFacts(reply.facts);
    outcome.facts = facts.length;
    if (facts.length > 0) {
      const factIds = facts.map((_, i) => `x-${input.messageId}-${i}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64));
      // The memory store records these facts in a log of its own: it stamps them with this workspace (ADR 0018).
      const workspaceId = await this.workspaces?.ownerOf('agents', input.agent.id);
      events.push({
        type: 'FactsExtracted',
        data: {
          customerId: input.customerId,
          sessionId: input.sessionId,
          ...(workspaceId !== undefined ? { workspaceId } : {}),
          sourceMessageId: input.messageId,
          extractedAt,
          facts: facts.map((f, i) => ({ factId: factIds[i], ...f })),
        },
      });
    }
    if (!guest && events.length > 0)
      await this.events.append(
        contextExtractionStream(input.customerId),
        events.map((e) => ({ ...e, metadata: { sessionId: input.sessionId } })),
      );
    return { outcome, values };
  }
}

/** One turn's memory work, started before matching. */
export class TurnMemoryRun {
  private readonly recalled: Promise<(RecallResponseV1 & { billed?: Priced[] }) | undefined>;
  private readonly extracted: Promise<{
    reply?: ExtractContextReplyV1;
    calls: Priced[];
    stored?: { outcome: ExtractionOutcome; values: Record<string, unknown> };
  }>;
  private knowledge: KnowledgeHit[] = [];
  private outcome: ExtractionOutcome | undefined;
  private recallServed = false;

  constructor(memory: TurnMemory, input: TurnMemoryInput) {
    this.recalled = memory.recall(input);
    // Stored as soon as it is back, whether or not the turn gets to compose (a newer message may supersede it).
    this.extracted = memory
      .extract(input)
      .then(async (x) => (x.reply ? { ...x, stored: await memory.store(input, x.reply, x.variables) } : x));
    // Awaited in forCompose; a rejection before then must not be unhandled.
    this.recalled.catch(() => undefined);
    this.extracted.catch(() => undefined);
  }

  /** Waits for recall and extraction; stores the extraction; what the reply is composed with. */
  async forCompose(): Promise<RememberedForReply> {
    const [recalled, extracted] = await Promise.all([this.recalled, this.extracted]);
    this.recallServed = recalled !== undefined;
    let fieldValues: Record<string, string> = {};
    let fromMessage: ExtractedFact[] = [];
    if (extracted.reply && extracted.stored) {
      const { outcome, values } = extracted.stored;
      this.outcome = outcome;
      fieldValues = scalarFieldValues(values);
      fromMessage = extracted.reply.facts;
    }
    // This message's facts are the newest: they win over recalled ones with the same subject and predicate.
    const facts = mergedFacts(fromMessage, recalled?.facts ?? []);
    this.knowledge = recalled?.sources ?? [];
    return {
      compose: { ...(facts.length > 0 ? { facts } : {}), ...(this.knowledge.length > 0 ? { knowledge: this.knowledge } : {}) },
      fieldValues,
      calls: [...(recalled?.billed ?? []), ...extracted.calls],
    };
  }

  /** The agent message's `data` additions: `sources` for the chunks the reply cited (docs/data-model.md#retrieval). */
  messageData(citedChunkIds: readonly string[] | undefined): { sources?: Omit<KnowledgeHit, 'chunk_id'>[] } {
    const cited = new Set(citedChunkIds ?? []);
    const sources = this.knowledge.filter((k) => cited.has(k.chunk_id)).map(({ chunk_id: _chunkId, ...source }) => source);
    return sources.length > 0 ? { sources } : {};
  }

  /** For the `ready` status: what memory the turn had and what extraction kept. */
  readyData(): { memory: Record<string, unknown> } {
    return {
      memory: {
        recalled: this.recallServed,
        knowledge_chunks: this.knowledge.map((k) => k.chunk_id),
        ...(this.outcome ? { extraction: this.outcome } : {}),
      },
    };
  }
}
