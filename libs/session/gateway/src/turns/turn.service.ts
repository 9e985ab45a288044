import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { composeReplySchema, matchGuidelinesSchema, type ComposeReplyInput, type ComposeReplyOutput, type LlmProvider, type MatchGuidelinesInput, type MatchGuidelinesOutput } from '@tenet/llm';
import { candidatesFor, selectMatches, type MatchableGuideline } from '@tenet/matching-domain';
import { AgentsRepository } from '../agents/agents.repository.js';
import type { EventView } from '../events/event.dto.js';
import { SessionEventsService } from '../events/session-events.service.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';

export const LLM_PROVIDER = Symbol.for('tenet.gateway.llm-provider');
export const GUIDELINE_SOURCE = Symbol.for('tenet.gateway.guideline-source');

/** Where a turn gets the guidelines that apply to an agent (tagged `agent:<id>`, or untagged). */
export interface GuidelineSource {
  forAgent(agentId: string): Promise<MatchableGuideline[]>;
}

class TurnCancelled extends Error {}

const HISTORY = 20;

/**
 * One conversation turn, as Parlant runs it: acknowledged → processing → match guidelines (seed 000 §8 with
 * the configured provider) → compose the reply from the matched actions → agent message → ready, listing the
 * matched guidelines with their scores. A new customer message while a turn runs cancels it (in this
 * process), and the cancelled turn appends nothing more after its `cancelled` status.
 */
@Injectable()
export class TurnService implements OnModuleDestroy {
  private readonly logger = new Logger(TurnService.name);
  private readonly running = new Map<string, { cancelled: boolean; done: Promise<void> }>();

  constructor(
    private readonly events: SessionEventsService,
    private readonly sessions: SessionsRepository,
    private readonly agents: AgentsRepository,
    @Inject(GUIDELINE_SOURCE) private readonly guidelines: GuidelineSource,
    @Inject(LLM_PROVIDER) private readonly provider: LlmProvider,
  ) {}

  /** Starts a turn for the customer message and returns at once; the turn's events follow on the session. */
  start(sessionId: string, trigger: EventView): void {
    const previous = this.running.get(sessionId);
    if (previous) previous.cancelled = true;
    const state = { cancelled: false, done: Promise.resolve() };
    state.done = (async () => {
      await previous?.done; // turns of one session never interleave
      await this.run(sessionId, trigger, state);
    })()
      .catch((error: unknown) => this.logger.error(`turn for session ${sessionId} failed: ${String(error)}`))
      .finally(() => {
        if (this.running.get(sessionId) === state) this.running.delete(sessionId);
      });
    this.running.set(sessionId, state);
  }

  /** On shutdown, running turns finish (their events are appended) before the platform closes the log. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.running.values()].map((turn) => turn.done));
  }

  /** Resolves when no turn is running for the session (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    await this.running.get(sessionId)?.done;
  }

  private async run(sessionId: string, trigger: EventView, state: { cancelled: boolean }): Promise<void> {
    const correlationId = trigger.correlation_id;
    const status = (value: string, data: Record<string, unknown> = {}) =>
      this.events.append(sessionId, { kind: 'status', source: 'ai_agent', status: value as 'ready', data }, correlationId);
    const checkpoint = async (): Promise<void> => {
      if (state.cancelled) {
        await status('cancelled');
        throw new TurnCancelled();
      }
    };
    try {
      await status('acknowledged');
      const session = await this.sessions.get(sessionId);
      const agent = session && (await this.agents.get(session.view.agent_id));
      if (!session || !agent) throw new Error(`session ${sessionId} or its agent no longer exists`);
      await checkpoint();
      await status('processing');
      const started = performance.now();

      const history = (await this.events.list(sessionId, { minOffset: 0, kinds: ['message'] }, 0)) ?? [];
      const message = String((trigger.data as { message?: unknown }).message ?? '');
      const candidates = candidatesFor(await this.guidelines.forAgent(agent.id), {});
      const turnHistory = history.slice(-HISTORY).map((e) => ({
        role: (e.source === 'customer' ? 'customer' : 'agent') as 'customer' | 'agent',
        content: String((e.data as { message?: unknown }).message ?? ''),
      }));
      const context = { purpose: 'match_guidelines', sessionId, agentId: agent.id };
      const matchInput: MatchGuidelinesInput = { message, history: turnHistory, guidelines: candidates.map((g) => ({ id: g.id, condition: g.condition, ...(g.action ? { action: g.action } : {}) })) };
      const scored =
        candidates.length === 0
          ? undefined
          : await this.provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>({
              task: { kind: 'match_guidelines', input: matchInput },
              system: `You decide which of an agent's guidelines apply to the customer's latest message. Score each from 0 to 1.`,
              prompt: JSON.stringify(matchInput),
              schemaName: 'guideline_matches',
              schema: matchGuidelinesSchema as unknown as Record<string, unknown>,
              context,
            });
      const result = selectMatches(candidates, scored?.value.matches ?? [], {});
      await checkpoint();

      await status('typing');
      const composeInput: ComposeReplyInput = {
        agentName: agent.name,
        message,
        matched: result.top_matches.flatMap((m) => (m.action ? [{ guideline_id: m.guideline_id, action: m.action }] : [])),
        history: turnHistory,
      };
      const reply = await this.provider.generate<ComposeReplyInput, ComposeReplyOutput>({
        task: { kind: 'compose_reply', input: composeInput },
        system: `You are ${agent.name}. ${agent.description ?? ''} Reply to the customer following these actions.`,
        prompt: JSON.stringify(composeInput),
        schemaName: 'reply',
        schema: composeReplySchema as unknown as Record<string, unknown>,
        context: { ...context, purpose: 'compose_reply' },
      });
      await checkpoint();

      await this.events.append(
        sessionId,
        { kind: 'message', source: 'ai_agent', message: reply.value.message, participant: { id: agent.id, display_name: agent.name } },
        correlationId,
      );
      const usage = [scored, reply].flatMap((r) => (r ? [{ provider: r.provider, model: r.model, input_tokens: r.usage.inputTokens, output_tokens: r.usage.outputTokens }] : []));
      await status('ready', {
        matched_guidelines: result.top_matches.map((m) => ({ guideline_id: m.guideline_id, score: m.relevance_score, priority: m.priority, reasoning: m.reasoning })),
        guideline_match_result: { ...result, evaluation_time_ms: Math.max(1, Math.round(performance.now() - started)) },
        cited_guideline_ids: reply.value.cited_guideline_ids,
        usage,
      });
    } catch (error) {
      if (error instanceof TurnCancelled) return;
      await status('error', { exception: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }
}
