import { readSettings, type PriceOverrides } from '@tenet/config';

/** USD per million tokens, by `provider/model`; a model missing from the table costs 0 and is flagged. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type PriceTable = Record<string, ModelPrice>;

/** List prices at the time of writing; deployments override them with TENET_PRICES (JSON, same shape). */
export const defaultPriceTable: PriceTable = {
  'openai/gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'openai/gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'openai/gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'anthropic/claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
  'anthropic/claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'offline/tenet-lexical-1': { inputPerMillion: 0, outputPerMillion: 0 },
};

/** Looks a model up exactly, then by prefix (dated snapshots such as `gpt-4o-mini-2024-07-18`). */
export function priceOf(table: PriceTable, provider: string, model: string): ModelPrice | undefined {
  const exact = table[`${provider}/${model}`];
  if (exact) return exact;
  const candidates = Object.keys(table)
    .filter((key) => `${provider}/${model}`.startsWith(key))
    .sort((a, b) => b.length - a.length);
  return candidates[0] === undefined ? undefined : table[candidates[0]];
}

export function estimateCostUsd(table: PriceTable, provider: string, model: string, inputTokens: number, outputTokens: number): number {
  const price = priceOf(table, provider, model);
  if (!price) return 0;
  return (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000;
}

export interface UsageRecord {
  at: string;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_estimate_usd: number;
}

export interface UsageSummary {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_estimate_usd: number;
  by_model: { provider: string; model: string; calls: number; input_tokens: number; output_tokens: number; cost_estimate_usd: number }[];
}

/** Sums the records whose time lies in [from, to) (ISO-8601 strings compare in time order). */
export function summarizeUsage(records: readonly UsageRecord[], from?: string, to?: string): UsageSummary {
  const byModel = new Map<string, UsageSummary['by_model'][number]>();
  const total: UsageSummary = { calls: 0, input_tokens: 0, output_tokens: 0, cost_estimate_usd: 0, by_model: [] };
  for (const record of records) {
    if ((from !== undefined && record.at < from) || (to !== undefined && record.at >= to)) continue;
    const key = `${record.provider}/${record.model}`;
    const entry = byModel.get(key) ?? {
      provider: record.provider,
      model: record.model,
      calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_estimate_usd: 0,
    };
    for (const target of [entry, total]) {
      target.calls += 1;
      target.input_tokens += record.input_tokens;
      target.output_tokens += record.output_tokens;
      target.cost_estimate_usd += record.cost_estimate_usd;
    }
    byModel.set(key, entry);
  }
  total.by_model = [...byModel.values()];
  return total;
}

/** TENET_PRICES (JSON `{ "provider/model": { "inputPerMillion": n, "outputPerMillion": n } }`, rule in `@tenet/config`) over the defaults. */
export function priceTableFrom(env: Record<string, string | undefined>, defaults: PriceTable): PriceTable {
  return priceTableWith(readSettings(env, ['TENET_PRICES']).TENET_PRICES, defaults);
}

/** A validated TENET_PRICES (`TenetConfig`) over the defaults. */
export function priceTableWith(overrides: PriceOverrides, defaults: PriceTable): PriceTable {
  return { ...defaults, ...overrides };
}
