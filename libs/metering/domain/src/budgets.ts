/**
 * Token budgets (ADR 0019, docs/data-model.md#budgets): limits on what an agent's LLM calls may spend, per session, per agent per
 * UTC day and month, and per workspace per month — in tokens or in estimated cost. Pure rules: periods, scope keys,
 * admission of a call, and which thresholds a charge crossed. The counters live in a budget store (Redis or in
 * process); the clock comes in as input.
 */

export const BUDGET_PERIODS = ['session', 'day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** `tokens`: input + output tokens. `usd`: estimated cost, counted in micro-dollars so counters stay integers. */
export type BudgetUnit = 'tokens' | 'usd';

/** One limit of an agent (or a workspace): exactly one of `tokens` and `cost_usd`. */
export interface BudgetLimit {
  period: BudgetPeriod;
  tokens?: number;
  cost_usd?: number;
}

/** What an agent does when a budget is spent: say the configured message, or hand the session to a human. */
export type BudgetExhaustedAction = 'message' | 'handoff';

export interface AgentBudget {
  limits: BudgetLimit[];
  exhausted_message?: string;
  on_exhausted?: BudgetExhaustedAction;
}

export const DEFAULT_BUDGET_EXHAUSTED_MESSAGE =
  "I'm sorry, I can't continue this conversation right now. Please try again later or contact us another way.";

/** The share of a limit at which a warning is published once per period. */
export const BUDGET_WARNING_RATIO = 0.8;

/** A limit made concrete for one call: the counter it charges, the period it is in, its limit in counter units. */
export interface BudgetScope {
  /** The counter: `agent:<id>:day`, `session:<id>`, `workspace:<id>:month`. */
  key: string;
  owner: { kind: 'agent' | 'session' | 'workspace'; id: string };
  period: BudgetPeriod;
  /** Which period the counter is in (`2026-11-26`, `2026-11`, `session`): a counter of another period counts 0. */
  period_id: string;
  unit: BudgetUnit;
  /** In counter units: tokens, or micro-dollars. */
  limit: number;
  /** When the period ends (ISO-8601); absent for a session budget. */
  resets_at?: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');
const DAY_MS = 86_400_000;

/** The UTC calendar date of a day number (days since 1970-01-01), by H. Hinnant's civil-from-days algorithm. */
function civilFromDays(days: number): { y: number; m: number; d: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** The day number of a UTC calendar date (inverse of civilFromDays). */
function daysFromCivil(year: number, m: number, d: number): number {
  const y = year - (m <= 2 ? 1 : 0);
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

const midnightIso = (days: number): string => {
  const { y, m, d } = civilFromDays(days);
  return `${y}-${pad(m)}-${pad(d)}T00:00:00.000Z`;
};

/** A period of a budget: its id, and (day, month) when it started and when it resets, as epoch ms and ISO-8601. */
export interface BudgetPeriodWindow {
  id: string;
  start?: string;
  resetsAt?: string;
  resetsAtMs?: number;
}

/** The UTC period containing `nowMs` (epoch ms). A session's budget never resets. Pure: no clock, no Date. */
export function periodOf(period: BudgetPeriod, nowMs: number): BudgetPeriodWindow {
  const today = Math.floor(nowMs / DAY_MS);
  const { y, m, d } = civilFromDays(today);
  switch (period) {
    case 'session':
      return { id: 'session' };
    case 'day':
      return {
        id: `${y}-${pad(m)}-${pad(d)}`,
        start: midnightIso(today),
        resetsAt: midnightIso(today + 1),
        resetsAtMs: (today + 1) * DAY_MS,
      };
    case 'month': {
      const next = m === 12 ? daysFromCivil(y + 1, 1, 1) : daysFromCivil(y, m + 1, 1);
      return { id: `${y}-${pad(m)}`, start: midnightIso(daysFromCivil(y, m, 1)), resetsAt: midnightIso(next), resetsAtMs: next * DAY_MS };
    }
    default: {
      const unknown: never = period;
      throw new TypeError(`unknown budget period ${String(unknown)}`);
    }
  }
}

/** A cost limit in counter units (micro-dollars). */
export const microUsd = (usd: number): number => Math.round(usd * 1_000_000);

const unitOf = (limit: BudgetLimit): { unit: BudgetUnit; amount: number } =>
  limit.tokens !== undefined ? { unit: 'tokens', amount: limit.tokens } : { unit: 'usd', amount: microUsd(limit.cost_usd ?? 0) };

/**
 * The scopes one call of an agent's session is charged to: the agent's limits (its `session` limit counted per
 * session) and the workspace's. Pure: the time comes in.
 */
export function budgetScopes(input: {
  agentId: string;
  sessionId?: string;
  agent?: AgentBudget | null;
  workspaceId?: string;
  workspace?: AgentBudget | null;
  nowMs: number;
}): BudgetScope[] {
  const scopes: BudgetScope[] = [];
  const add = (owner: BudgetScope['owner'], limit: BudgetLimit, key: string): void => {
    const { unit, amount } = unitOf(limit);
    const p = periodOf(limit.period, input.nowMs);
    scopes.push({
      key,
      owner,
      period: limit.period,
      period_id: p.id,
      unit,
      limit: amount,
      ...(p.resetsAt ? { resets_at: p.resetsAt } : {}),
    });
  };
  for (const limit of input.agent?.limits ?? []) {
    if (limit.period === 'session') {
      if (input.sessionId !== undefined)
        add({ kind: 'session', id: input.sessionId }, limit, `session:${input.sessionId}:${unitOf(limit).unit}`);
    } else add({ kind: 'agent', id: input.agentId }, limit, `agent:${input.agentId}:${limit.period}:${unitOf(limit).unit}`);
  }
  if (input.workspaceId !== undefined) {
    for (const limit of input.workspace?.limits ?? []) {
      if (limit.period !== 'session')
        add({ kind: 'workspace', id: input.workspaceId }, limit, `workspace:${input.workspaceId}:${limit.period}:${unitOf(limit).unit}`);
    }
  }
  return scopes;
}

/** The thresholds (0.8 warning, 1 exhausted) a charge crossed, from `before` to `after` used. */
export function crossedThresholds(before: number, after: number, limit: number): ('warning' | 'exhausted')[] {
  const crossed: ('warning' | 'exhausted')[] = [];
  const warning = limit * BUDGET_WARNING_RATIO;
  if (before < warning && after >= warning) crossed.push('warning');
  if (before < limit && after >= limit) crossed.push('exhausted');
  return crossed;
}

/** What one call costs against a scope, in its counter unit. */
export const chargeOf = (unit: BudgetUnit, call: { input_tokens: number; output_tokens: number; cost_estimate_usd: number }): number =>
  unit === 'tokens' ? call.input_tokens + call.output_tokens : microUsd(call.cost_estimate_usd);

/** Checks an agent's (or workspace's) budget; every problem names its field (`limits[1].tokens`) and rule. */
export function budgetProblems(budget: AgentBudget, path = 'budget'): { field: string; rule: string }[] {
  const problems: { field: string; rule: string }[] = [];
  const seen = new Set<string>();
  budget.limits.forEach((limit, i) => {
    const at = `${path}.limits[${i}]`;
    if (!(BUDGET_PERIODS as readonly string[]).includes(limit.period))
      problems.push({ field: `${at}.period`, rule: `period must be one of ${BUDGET_PERIODS.join(', ')}` });
    const given = [limit.tokens, limit.cost_usd].filter((v) => v !== undefined).length;
    if (given !== 1) problems.push({ field: at, rule: 'give exactly one of tokens and cost_usd' });
    if (limit.tokens !== undefined && (!Number.isInteger(limit.tokens) || limit.tokens < 1))
      problems.push({ field: `${at}.tokens`, rule: 'tokens must be a positive integer' });
    if (limit.cost_usd !== undefined && (!(limit.cost_usd > 0) || !Number.isFinite(limit.cost_usd)))
      problems.push({ field: `${at}.cost_usd`, rule: 'cost_usd must be a positive number' });
    const key = `${limit.period}:${limit.tokens !== undefined ? 'tokens' : 'usd'}`;
    if (seen.has(key))
      problems.push({
        field: at,
        rule: `only one ${limit.tokens !== undefined ? 'tokens' : 'cost_usd'} limit per period (${limit.period})`,
      });
    seen.add(key);
  });
  return problems;
}
