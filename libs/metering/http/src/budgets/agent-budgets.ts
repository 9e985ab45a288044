import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import {
  BUDGET_EVENT_TYPES,
  budgetStreamId,
  LLM_USAGE_EVENT_TYPE,
  usageStreamId,
  type BudgetEventData,
  type BudgetScopeV1,
  type LlmUsageData,
} from '@tenet/contracts';
import type { BudgetStore } from '@tenet/budget-store';
import { atIdle, type EventStore } from '@tenet/event-store';
import { RemoteHandlerError } from '@tenet/messaging';
import { BUDGET_WARNING_RATIO, budgetScopes, chargeOf, periodOf, type BudgetScope } from '@tenet/metering-domain';
import { BUDGET_STORE, EVENT_STORE, SCHEDULER } from '@tenet/platform-runtime';
import { BackgroundArming, type Scheduler } from '@tenet/scheduling';
import { type AgentView, AgentsRepository } from '@tenet/catalog-data-access';
import { WorkspaceDirectory, WorkspacesRepository } from '@tenet/edge';

/** The queue of the daily budget reset job (a chain of delayed jobs, one per UTC midnight; see `scheduleNextReset`). */
export const BUDGET_RESET_QUEUE = 'budget-resets';

/** A refusal of the matcher: a budget the step's calls are charged to is spent. */
export interface BudgetRefusal {
  scope: BudgetScopeV1;
  used: number;
}

/** A turn refused before its first call: its whole estimate does not fit in what is left of a budget. */
export class TurnBudgetRefused extends Error {
  readonly code = 'BUDGET.EXCEEDED';
  constructor(readonly refusal: BudgetRefusal) {
    super(`token budget ${refusal.scope.key} has less left than the turn's estimate`);
  }
}

/** The budget store does not answer: a budgeted turn fails closed instead of running uncounted (ADR 0019, amendment). */
export class BudgetUnavailableError extends Error {
  readonly code = 'BUDGET.UNAVAILABLE';
  constructor(cause: unknown) {
    super(`the budget store does not answer: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'BudgetUnavailableError';
  }
}

/** Usage records read per page when the counters are rebuilt from the log. */
const REBUILD_PAGE = 1_000;

/** How long a budget store operation of a turn may take before the store counts as unavailable. */
const STORE_TIMEOUT_MS = 5_000;

/** Runs a budget store operation within STORE_TIMEOUT_MS; a failure or a timeout is `BudgetUnavailableError`. */
async function answered<T>(operation: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      operation(),
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS)),
      ),
    ]);
  } catch (error) {
    throw new BudgetUnavailableError(error);
  } finally {
    clearTimeout(timer);
  }
}

/** The budget refusal in a failed matcher step (or of the turn up front), if that is why it failed. */
export function budgetRefusalOf(error: unknown): BudgetRefusal | undefined {
  if (error instanceof TurnBudgetRefused) return error.refusal;
  if (!(error instanceof RemoteHandlerError) || error.remoteCode !== 'BUDGET.EXCEEDED') return undefined;
  const details = error.details as Partial<BudgetRefusal> | undefined;
  return details?.scope ? { scope: details.scope, used: Number(details.used ?? 0) } : undefined;
}

/** One budget of the agent as `GET /agents/{id}/budget` shows it. */
export interface BudgetStatusView {
  key: string;
  period: BudgetScope['period'];
  period_id: string;
  unit: 'tokens' | 'usd';
  limit: number;
  used: number;
  /** Held by calls in flight. */
  reserved: number;
  remaining: number;
  exhausted: boolean;
  period_start?: string;
  resets_at?: string;
}

/** Counter units → the limit's unit (micro-dollars → USD). */
const fromUnits = (scope: Pick<BudgetScope, 'unit'>, value: number): number => (scope.unit === 'usd' ? value / 1_000_000 : value);

/** Flags outlive their period (a warning is published once per budget and period). */
const FLAG_TTL_MS = 40 * 86_400_000;
/** A turn's hold lasts as long as its deadline may (then it stops holding budget, like a call's reservation). */
const TURN_HOLD_TTL_MS = 150_000;
/** How long a turn waits for room that other turns and calls in flight hold before it is refused. */
const TURN_HOLD_WAIT_MS = 10_000;

/** What a whole turn may cost, per unit (micro-dollars for `usd`), estimated before its first call. */
export interface TurnEstimate {
  tokens: number;
  usd: number;
}

/** Characters of instructions and output schema the matcher adds to each of a turn's two calls (an upper bound). */
const CALL_PROMPT_CHARS = 6_000;
/** Output tokens a matching call is estimated at (the matcher's default when no max_tokens is set). */
const MATCH_OUTPUT_TOKENS = 1_024;

/**
 * Tokens a turn's calls are estimated at before the first is made, the way the matcher estimates each call (~3
 * characters per input token plus the output cap): the match call and the compose call each see the turn's
 * material (`materialChars`: agent, history, message, guidelines, glossary, tools, templates) and their own
 * instructions; matching answers up to MATCH_OUTPUT_TOKENS, composing up to the agent's `max_tokens`.
 */
export const turnTokenEstimate = (materialChars: number, maxTokens: number): number =>
  2 * Math.ceil((materialChars + CALL_PROMPT_CHARS) / 3) + MATCH_OUTPUT_TOKENS + maxTokens;

/** A turn's hold on its budgets: the scopes to send with its requests (`held_by` set), and its release. */
export interface TurnHold {
  scopes: BudgetScopeV1[];
  release(): Promise<void>;
}

/**
 * The gateway's side of token budgets (ADR 0019): the scopes a turn's calls are charged to (sent to the
 * matcher, which reserves each call against them before making it), the 80 % warning and exhaustion events (once per
 * budget and period across replicas), `GET /agents/{id}/budget`, and the daily reset job.
 */
@Injectable()
export class AgentBudgets implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AgentBudgets.name);
  /**
   * The counter rebuilds (at start-up, and — coalesced — each time Redis answers again) and the reset chain scheduled
   * again then: in the background, stopped and awaited at shutdown.
   */
  private readonly background = new BackgroundArming({
    attempts: 1,
    attemptTimeoutMs: STORE_TIMEOUT_MS,
    log: this.logger,
    whenLost: 'the next start-up schedules it again',
  });
  /** The start-up rebuild of the counters. */
  private startupRebuild: Promise<void> = Promise.resolve();

  constructor(
    private readonly agents: AgentsRepository,
    private readonly directory: WorkspaceDirectory,
    private readonly workspaces: WorkspacesRepository,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Optional() @Inject(BUDGET_STORE) private readonly budgets?: BudgetStore,
  ) {}

  /** The reset job: at every UTC midnight day counters (and on the 1st, month counters) start again from 0. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.budgets) return;
    await this.scheduler.process<{ at: string }>(BUDGET_RESET_QUEUE, async (job) => {
      const at = new Date(job.data.at);
      const reset = await this.reset(at);
      if (reset > 0) this.logger.log(`budget period reset at ${at.toISOString()}: ${reset} counter(s) zeroed`);
      await this.scheduleNextReset(new Date());
    });
    await this.scheduleNextReset(new Date());
    // The counters live in Redis (distributed) or in this process (embedded): a Redis restart without persistence, or a
    // restart of the embedded host, starts them from 0 while the log still holds what this period's calls cost. Rebuilt
    // from it at start-up and whenever Redis answers again, in the idle lane (it reads every usage record).
    this.startupRebuild = this.rebuildLogged('start-up');
    this.background.track(this.startupRebuild);
    // A Redis restart without persistence also drops the reset chain's pending job: scheduled again (idempotent).
    this.background.rebuildWhenRestored(this.scheduler, 'the budget counters', () =>
      Promise.all([this.rebuildLogged('Redis answers again'), this.scheduleNextReset(new Date())]),
    );
  }

  /** Resolves when the start-up rebuild of the counters has finished (tests). */
  async rebuilt(): Promise<void> {
    await this.startupRebuild;
  }

  /** Stops the rebuilds (one under way ends at its next page) and waits for them, before the log closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.background.stop();
  }

  private rebuildLogged(why: string): Promise<void> {
    return atIdle(() => this.rebuildCounters()).then(
      (raised) => void (raised > 0 && this.logger.log(`budget counters rebuilt from the event log (${why}): ${raised} raised`)),
      (error: unknown) => this.logger.warn(`budget counters were not rebuilt from the event log (${why}): ${String(error)}`),
    );
  }

  /**
   * Raises every budget counter of the current periods to what the event log's usage records of those periods add up to
   * (never lowers one, so a counter ahead of the log — a call settled before its record was written — stays). Each
   * record is charged to the scopes its agent's and workspace's budgets give it now: the agent's and workspace's day
   * and month (records of that period only) and its session's (all its records). Resolves how many counters rose.
   */
  async rebuildCounters(now = new Date()): Promise<number> {
    const store = this.budgets;
    if (!store) return 0;
    const nowMs = now.getTime();
    const agents = new Map((await this.agents.list()).map((agent) => [agent.id, agent]));
    // Per agent, its workspace (read once), or null when neither has a budget: its records are skipped.
    const owners = new Map<string, Awaited<ReturnType<AgentBudgets['workspaceOf']>> | null>();
    const scopesOf = new Map<string, BudgetScope[]>();
    const totals = new Map<string, { periodId: string; used: number }>();
    const starts = { day: periodOf('day', nowMs).start ?? '', month: periodOf('month', nowMs).start ?? '' };
    for (let after = 0; !this.background.signal.aborted;) {
      const page = await this.store.readAll({
        category: usageStreamId(''),
        types: [LLM_USAGE_EVENT_TYPE],
        afterPosition: after,
        limit: REBUILD_PAGE,
      });
      for (const event of page) {
        const usage = event.data as LlmUsageData;
        const agent = agents.get(usage.agent_id);
        if (!agent) continue; // deleted since: its budgets are gone
        if (!owners.has(agent.id)) {
          const owner = await this.workspaceOf(agent.id);
          owners.set(agent.id, agent.budget?.limits.length || owner.workspace?.limits.length ? owner : null);
        }
        const owner = owners.get(agent.id);
        if (!owner) continue;
        const memo = `${agent.id}\u0000${usage.session_id ?? ''}`;
        let scopes = scopesOf.get(memo);
        if (!scopes) {
          scopes = budgetScopes({
            agentId: agent.id,
            ...(usage.session_id !== undefined ? { sessionId: usage.session_id } : {}),
            agent: agent.budget,
            ...owner,
            nowMs,
          });
          scopesOf.set(memo, scopes);
        }
        for (const scope of scopes) {
          if (scope.period !== 'session' && event.recordedAt < starts[scope.period]) continue;
          const total = totals.get(scope.key) ?? { periodId: scope.period_id, used: 0 };
          total.used += chargeOf(scope.unit, usage);
          totals.set(scope.key, total);
        }
      }
      const last = page.at(-1);
      if (!last || page.length < REBUILD_PAGE) break;
      after = last.position;
    }
    if (totals.size === 0 || this.background.signal.aborted) return 0; // nothing read, or shutting down
    return answered(() => store.raise([...totals].map(([key, total]) => ({ key, ...total }))));
  }

  /** Zeroes the counters of periods that ended by `at` (day, and month on the 1st). Also run by tests. */
  async reset(at: Date): Promise<number> {
    if (!this.budgets) return 0;
    return (
      (await this.budgets.resetPeriod('day', periodOf('day', at.getTime()).id)) +
      (await this.budgets.resetPeriod('month', periodOf('month', at.getTime()).id))
    );
  }

  /**
   * The next UTC midnight's reset job, under a deterministic id, so every replica scheduling it makes one job
   * (BullMQ, shared by the replicas) — a repeatable job built as a chain: each run schedules the next.
   */
  private async scheduleNextReset(now: Date): Promise<void> {
    const next = periodOf('day', now.getTime());
    const at = next.resetsAtMs ?? now.getTime();
    await this.scheduler.schedule({
      queue: BUDGET_RESET_QUEUE,
      jobId: `reset-${next.resetsAt?.slice(0, 10) ?? ''}`,
      data: { at: new Date(at).toISOString() },
      delayMs: Math.max(0, at - now.getTime()) + 1_000,
      attempts: 5,
      backoff: { type: 'exponential', delayMs: 1_000 },
    });
  }

  /** The agent's workspace and that workspace's budget (per day or month, across its agents). */
  private async workspaceOf(agentId: string): Promise<{ workspaceId: string; workspace: AgentView['budget'] }> {
    const workspaceId = await this.directory.ownerOf('agents', agentId);
    return { workspaceId, workspace: (await this.workspaces.get(workspaceId)).budget };
  }

  /** The budget scopes a call of the agent's session is charged to now (its own and its workspace's); undefined when none. */
  async scopesFor(
    agent: Pick<AgentView, 'id' | 'budget'>,
    sessionId: string | undefined,
    now = new Date(),
  ): Promise<BudgetScopeV1[] | undefined> {
    const { workspaceId, workspace } = await this.workspaceOf(agent.id);
    if (!agent.budget?.limits.length && !workspace?.limits.length) return undefined;
    const scopes = budgetScopes({
      agentId: agent.id,
      ...(sessionId !== undefined ? { sessionId } : {}),
      agent: agent.budget,
      workspaceId,
      workspace,
      nowMs: now.getTime(),
    });
    return scopes.length > 0 ? scopes : undefined;
  }

  /**
   * Reserves a whole turn's estimate on every scope before its first call (ADR 0019): a turn that
   * cannot afford it is refused up front (`TurnBudgetRefused`, answered with the exhausted reply) instead of
   * spending its matching calls and being refused at composing. While others hold the room, waits for them up to
   * TURN_HOLD_WAIT_MS. The returned scopes carry the hold's id: the turn's own calls are admitted against the
   * budget minus the other calls in flight, not minus its own hold.
   */
  async holdTurn(holdId: string, scopes: readonly BudgetScopeV1[], estimate: TurnEstimate, signal?: AbortSignal): Promise<TurnHold> {
    const store = this.budgets;
    if (!store) return { scopes: [...scopes], release: async () => undefined };
    const started = Date.now();
    for (let backoff = 25; ; backoff = Math.min(backoff * 2, 500)) {
      const result = await answered(() =>
        store.reserve({
          reservationId: holdId,
          ttlMs: TURN_HOLD_TTL_MS,
          now: Date.now(),
          scopes: scopes.map((s) => ({ key: s.key, periodId: s.period_id, limit: s.limit, estimate: estimate[s.unit] })),
        }),
      );
      if (result.outcome === 'reserved') break;
      const scope = scopes.find((s) => s.key === result.key) ?? (scopes[0] as BudgetScopeV1);
      if (result.outcome === 'exhausted') throw new TurnBudgetRefused({ scope, used: result.used });
      if (Date.now() - started > TURN_HOLD_WAIT_MS || signal?.aborted) {
        const used =
          (await answered(() => store.read([{ key: scope.key, periodId: scope.period_id }], Date.now()))).get(scope.key)?.used ?? 0;
        throw new TurnBudgetRefused({ scope, used });
      }
      await new Promise((resolve) => setTimeout(resolve, backoff));
    }
    return {
      scopes: scopes.map((s) => ({ ...s, held_by: holdId })),
      // A release that fails (the store went away mid-turn) is logged: the hold then ends with its TTL.
      release: () =>
        store
          .release(
            holdId,
            scopes.map((s) => s.key),
          )
          .catch((error: unknown) =>
            this.logger.warn(`could not release budget hold ${holdId} (it expires in ${TURN_HOLD_TTL_MS / 1000} s): ${String(error)}`),
          ),
    };
  }

  /** Usage of each budget of the agent (a session's budget for `sessionId`, when given). */
  async status(agent: AgentView, sessionId?: string, now = new Date()): Promise<BudgetStatusView[]> {
    const scopes = budgetScopes({
      agentId: agent.id,
      ...(sessionId !== undefined ? { sessionId } : {}),
      agent: agent.budget,
      ...(await this.workspaceOf(agent.id)),
      nowMs: now.getTime(),
    });
    const counters = this.budgets
      ? await this.budgets.read(
          scopes.map((s) => ({ key: s.key, periodId: s.period_id })),
          now.getTime(),
        )
      : new Map<string, { used: number; reserved: number }>();
    return scopes.map((scope) => {
      const counter = counters.get(scope.key) ?? { used: 0, reserved: 0 };
      const start = periodOf(scope.period, now.getTime()).start;
      return {
        key: scope.key,
        period: scope.period,
        period_id: scope.period_id,
        unit: scope.unit,
        limit: fromUnits(scope, scope.limit),
        used: fromUnits(scope, counter.used),
        reserved: fromUnits(scope, counter.reserved),
        remaining: fromUnits(scope, Math.max(0, scope.limit - counter.used)),
        exhausted: counter.used >= scope.limit,
        ...(start ? { period_start: start } : {}),
        ...(scope.resets_at ? { resets_at: scope.resets_at } : {}),
      };
    });
  }

  /**
   * After a step's calls were charged: a budget at 80 % or more publishes `budget_warning`, a spent one
   * `budget_exceeded` — each once per budget and period, whichever replica sees it first.
   */
  async afterCalls(agentId: string, sessionId: string): Promise<void> {
    if (!this.budgets) return;
    const agent = await this.agents.get(agentId);
    const scopes = agent && (await this.scopesFor(agent, sessionId));
    if (!scopes) return;
    const store = this.budgets;
    const counters = await answered(() =>
      store.read(
        scopes.map((s) => ({ key: s.key, periodId: s.period_id })),
        Date.now(),
      ),
    );
    for (const scope of scopes) {
      const used = counters.get(scope.key)?.used ?? 0;
      // One call may cross 80 % and 100 % at once: both are published (the warning first), each once per period.
      if (used >= scope.limit * BUDGET_WARNING_RATIO) await this.publishOnce('warning', agentId, sessionId, scope, used);
      if (used >= scope.limit) await this.publishOnce('exceeded', agentId, sessionId, scope, used);
    }
  }

  /** Records the refusal: `budget_exceeded` for the scope (once per period) when it is spent, not merely short of room for a call. */
  async refused(agentId: string, sessionId: string, refusal: BudgetRefusal): Promise<void> {
    if (refusal.used >= refusal.scope.limit) await this.publishOnce('exceeded', agentId, sessionId, refusal.scope, refusal.used);
  }

  private async publishOnce(
    kind: 'warning' | 'exceeded',
    agentId: string,
    sessionId: string,
    scope: BudgetScopeV1,
    used: number,
  ): Promise<void> {
    if (!this.budgets || !(await this.budgets.markOnce(`${kind}:${scope.key}:${scope.period_id}`, FLAG_TTL_MS))) return;
    const data: BudgetEventData = {
      agent_id: agentId,
      session_id: sessionId,
      scope: {
        key: scope.key,
        owner: scope.owner.kind,
        owner_id: scope.owner.id,
        period: scope.period,
        period_id: scope.period_id,
        unit: scope.unit,
      },
      limit: fromUnits(scope, scope.limit),
      used: fromUnits(scope, used),
      ...(scope.resets_at ? { resets_at: scope.resets_at } : {}),
    };
    await this.store.append(budgetStreamId(agentId), [
      { type: kind === 'warning' ? BUDGET_EVENT_TYPES.warning : BUDGET_EVENT_TYPES.exceeded, data },
    ]);
  }
}
