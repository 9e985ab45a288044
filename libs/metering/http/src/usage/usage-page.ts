import type { UsageSummary } from '@tenet/metering-domain';

/** The windows the token-spend page offers: the last 24 hours by hour, or the last 7 / 30 days by day. */
export const USAGE_RANGES = {
  '24h': { buckets: 24, stepMs: 3_600_000, label: 'last 24 hours, by hour' },
  '7d': { buckets: 7, stepMs: 86_400_000, label: 'last 7 days, by day' },
  '30d': { buckets: 30, stepMs: 86_400_000, label: 'last 30 days, by day' },
} as const;
export type UsageRange = keyof typeof USAGE_RANGES;

export interface UsageBucket {
  from: string;
  to: string;
}
export interface AgentUsage {
  id: string;
  name: string;
  total: UsageSummary;
  buckets: UsageSummary[];
}

const EMPTY: UsageSummary = { calls: 0, input_tokens: 0, output_tokens: 0, cost_estimate_usd: 0, by_model: [] };
/** The agent's usage in bucket `i` (an agent without calls there counts as zero). */
const inBucket = (agent: AgentUsage, i: number): UsageSummary => agent.buckets[i] ?? EMPTY;

/** Bucket boundaries ending at the current hour's (or day's, UTC) end, oldest first. */
export function usageBuckets(range: UsageRange, now: Date): UsageBucket[] {
  const { buckets, stepMs } = USAGE_RANGES[range];
  const end = Math.floor(now.getTime() / stepMs) * stepMs + stepMs;
  return Array.from({ length: buckets }, (_, i) => ({
    from: new Date(end - (buckets - i) * stepMs).toISOString(),
    to: new Date(end - (buckets - i - 1) * stepMs).toISOString(),
  }));
}

const COLORS = ['#2f6fed', '#e8793a', '#2a9d8f', '#c44569', '#8e6bd8', '#d4a72c', '#4a5568', '#38a169'];
const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const usd = (value: number): string => (value === 0 ? '$0' : value < 0.01 ? `$${value.toFixed(6)}` : `$${value.toFixed(2)}`);
const count = (value: number): string => value.toLocaleString('en-US');
export const bucketLabel = (bucket: UsageBucket, range: UsageRange): string =>
  range === '24h' ? `${bucket.from.slice(11, 16)}` : bucket.from.slice(5, 10);

/** A stacked bar chart (one bar per bucket, one colour per agent) as inline SVG: readable without JavaScript. */
function stackedBars(
  title: string,
  agents: AgentUsage[],
  buckets: UsageBucket[],
  range: UsageRange,
  value: (s: UsageSummary) => number,
  format: (n: number) => string,
): string {
  const width = 760;
  const height = 220;
  const left = 70;
  const bottom = 28;
  const totals = buckets.map((_, i) => agents.reduce((sum, a) => sum + value(inBucket(a, i)), 0));
  const max = Math.max(...totals, 0);
  const slot = (width - left - 10) / buckets.length;
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number): number => (max === 0 ? 0 : (v / max) * (height - bottom - 10));
  const rects = buckets.flatMap((bucket, i) => {
    let base = 0;
    return agents.map((agent, a) => {
      const v = value(inBucket(agent, i));
      const h = y(v);
      const rect =
        v > 0
          ? `<rect x="${(left + i * slot + (slot - bar) / 2).toFixed(1)}" y="${(height - bottom - base - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[a % COLORS.length]}"><title>${escape(agent.name)} · ${bucket.from} → ${bucket.to}: ${format(v)}</title></rect>`
          : '';
      base += h;
      return rect;
    });
  });
  const ticks = buckets
    .map((bucket, i) =>
      i % Math.ceil(buckets.length / 12) === 0
        ? `<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${height - 10}" text-anchor="middle">${bucketLabel(bucket, range)}</text>`
        : '',
    )
    .join('');
  return `<figure><figcaption>${escape(title)}</figcaption>
<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(title)}">
<line x1="${left}" y1="${height - bottom}" x2="${width - 10}" y2="${height - bottom}" stroke="#c8cdd8"/>
<text x="${left - 8}" y="16" text-anchor="end">${format(max)}</text><text x="${left - 8}" y="${height - bottom}" text-anchor="end">0</text>
${rects.join('')}${ticks}</svg></figure>`;
}

/** The token-spend page: totals per agent, cost and tokens over time per agent, usage by model, and `sections` (intents). */
export function usagePage(agents: AgentUsage[], buckets: UsageBucket[], range: UsageRange, generatedAt: Date, sections = ''): string {
  const legend = agents
    .map((a, i) => `<li><span class="swatch" style="background:${COLORS[i % COLORS.length]}"></span>${escape(a.name)}</li>`)
    .join('');
  const totalRows = agents
    .map(
      (a) =>
        `<tr><th scope="row">${escape(a.name)} <small>${escape(a.id)}</small></th><td>${count(a.total.calls)}</td><td>${count(a.total.input_tokens)}</td><td>${count(a.total.output_tokens)}</td><td>${usd(a.total.cost_estimate_usd)}</td></tr>`,
    )
    .join('');
  const modelRows = agents
    .flatMap((a) =>
      a.total.by_model.map(
        (m) =>
          `<tr><th scope="row">${escape(a.name)}</th><td>${escape(m.provider)}/${escape(m.model)}</td><td>${count(m.calls)}</td><td>${count(m.input_tokens + m.output_tokens)}</td><td>${usd(m.cost_estimate_usd)}</td></tr>`,
      ),
    )
    .join('');
  const bucketRows = buckets
    .flatMap((bucket, i) =>
      agents
        .map((a) => ({ name: a.name, usage: inBucket(a, i) }))
        .filter(({ usage }) => usage.calls > 0)
        .map(
          ({ name, usage }) =>
            `<tr><td>${bucket.from} → ${bucket.to}</td><th scope="row">${escape(name)}</th><td>${count(usage.calls)}</td><td>${count(usage.input_tokens + usage.output_tokens)}</td><td>${usd(usage.cost_estimate_usd)}</td></tr>`,
        ),
    )
    .join('');
  const links = (Object.keys(USAGE_RANGES) as UsageRange[])
    .map((r) => (r === range ? `<strong>${r}</strong>` : `<a href="?range=${r}">${r}</a>`))
    .join(' · ');
  const tokens = (s: UsageSummary): number => s.input_tokens + s.output_tokens;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tenet · token spend</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  header { padding: 14px 24px; background: #1d2330; color: #fff; } header small { color: #aab2c5; } header a { color: #9ec1ff; }
  main { max-width: 820px; margin: 0 auto; padding: 8px 16px 40px; }
  section { background: #fff; border: 1px solid #dde1e8; border-radius: 10px; padding: 12px 16px; margin: 16px 0; }
  h2 { font-size: 16px; margin: 4px 0 10px; }
  table { border-collapse: collapse; width: 100%; font-size: 14px; } th, td { text-align: right; padding: 5px 8px; border-bottom: 1px solid #eceef2; }
  th:first-child, td:first-child { text-align: left; } th small { color: #5b6477; font-weight: normal; }
  figure { margin: 0 0 12px; } figcaption { font-weight: 600; margin-bottom: 4px; } svg { width: 100%; height: auto; font-size: 11px; fill: #5b6477; }
  ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 14px; margin: 0 0 8px; }
  .swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
  .empty { color: #5b6477; }
</style>
</head>
<body>
<header><strong>Token spend</strong> <small>${USAGE_RANGES[range].label} · ${links} · generated ${generatedAt.toISOString()} · costs are estimates from the price table</small></header>
<main>
${agents.length === 0 ? '<p class="empty">No agents yet.</p>' : ''}
<section><h2>Per agent</h2>
<table><thead><tr><th>Agent</th><th>Calls</th><th>Input tokens</th><th>Output tokens</th><th>Cost</th></tr></thead><tbody>${totalRows}</tbody></table></section>
<section><h2>Over time</h2><ul class="legend">${legend}</ul>
${stackedBars('Cost per agent', agents, buckets, range, (s) => s.cost_estimate_usd, usd)}
${stackedBars('Tokens per agent (input + output)', agents, buckets, range, tokens, count)}
</section>
<section><h2>By model</h2>
<table><thead><tr><th>Agent</th><th>Provider/model</th><th>Calls</th><th>Tokens</th><th>Cost</th></tr></thead><tbody>${modelRows || '<tr><td colspan="5" class="empty">No LLM calls in this window.</td></tr>'}</tbody></table></section>
${sections}
<section><details><summary>Every ${range === '24h' ? 'hour' : 'day'} as a table</summary>
<table><thead><tr><th>Window</th><th>Agent</th><th>Calls</th><th>Tokens</th><th>Cost</th></tr></thead><tbody>${bucketRows || '<tr><td colspan="5" class="empty">No LLM calls in this window.</td></tr>'}</tbody></table></details></section>
</main>
</body>
</html>`;
}
