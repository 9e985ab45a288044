import { INTENT_RECOGNIZED_EVENT_TYPE, intentRecognitionStreamId, type IntentRecognizedData } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';

/** What customers came for in one window: messages classified, by intent, and how many were asked about or unknown. */
export interface IntentCounts {
  messages: number;
  /** Recognised intents only, by name. */
  by_intent: Record<string, number>;
  clarifications: number;
  unknown: number;
  /** clarifications / messages (0 when there were none). */
  clarification_rate: number;
}

export interface AgentIntentReport {
  agent_id: string;
  total: IntentCounts;
  buckets: IntentCounts[];
}

const empty = (): IntentCounts => ({ messages: 0, by_intent: {}, clarifications: 0, unknown: 0, clarification_rate: 0 });

function add(counts: IntentCounts, data: IntentRecognizedData): void {
  counts.messages += 1;
  if (data.outcome === 'recognized') counts.by_intent[data.intent] = (counts.by_intent[data.intent] ?? 0) + 1;
  else if (data.outcome === 'clarify') counts.clarifications += 1;
  else counts.unknown += 1;
  counts.clarification_rate = Math.round((counts.clarifications / counts.messages) * 1000) / 1000;
}

/**
 * Intent counts and clarification rate per agent over time (ADR 0031), folded from the agent's
 * `recognition-<agentId>` stream — the events `intent.recognized` is published from — for the `/admin/usage` page.
 */
export class IntentReports {
  constructor(private readonly store: EventStore) {}

  /** The page section for these reports (`intentsSection`). */
  section(
    reports: readonly (AgentIntentReport & { name: string })[],
    buckets: readonly { from: string; to: string }[],
    label: (bucket: { from: string; to: string }) => string,
  ): string {
    return intentsSection(reports, buckets, label);
  }

  async forAgent(agentId: string, buckets: readonly { from: string; to: string }[]): Promise<AgentIntentReport> {
    const report: AgentIntentReport = { agent_id: agentId, total: empty(), buckets: buckets.map(empty) };
    const from = buckets[0]?.from ?? '';
    const to = buckets.at(-1)?.to ?? '';
    for (const event of await this.store.readStream(intentRecognitionStreamId(agentId), { types: [INTENT_RECOGNIZED_EVENT_TYPE] })) {
      if (event.recordedAt < from || event.recordedAt >= to) continue;
      const data = event.data as IntentRecognizedData;
      add(report.total, data);
      const index = buckets.findIndex((b) => event.recordedAt >= b.from && event.recordedAt < b.to);
      const bucket = report.buckets[index];
      if (bucket) add(bucket, data);
    }
    return report;
  }
}

const COLORS = ['#2f6fed', '#e8793a', '#2a9d8f', '#c44569', '#8e6bd8', '#d4a72c', '#4a5568', '#38a169'];
const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

/**
 * The usage page's intents section: a stacked bar chart of classified messages over time (one colour per intent,
 * clarifications and unknowns included), and a table per agent of each intent's count and share with the
 * clarification rate. Inline SVG and HTML, like the rest of the page.
 */
export function intentsSection(
  reports: readonly (AgentIntentReport & { name: string })[],
  buckets: readonly { from: string; to: string }[],
  label: (bucket: { from: string; to: string }) => string,
): string {
  const withMessages = reports.filter((r) => r.total.messages > 0);
  if (withMessages.length === 0)
    return '<section><h2>Intents</h2><p class="empty">No messages classified into intents in this window.</p></section>';
  const series = [...new Set(withMessages.flatMap((r) => Object.keys(r.total.by_intent)))].sort();
  const keys = [...series, 'CLARIFICATION_NEEDED', 'UNKNOWN'];
  const valueOf = (counts: IntentCounts, key: string): number =>
    key === 'CLARIFICATION_NEEDED' ? counts.clarifications : key === 'UNKNOWN' ? counts.unknown : (counts.by_intent[key] ?? 0);
  const perBucket = buckets.map((_, i) =>
    keys.map((key) => withMessages.reduce((sum, r) => sum + valueOf(r.buckets[i] ?? empty(), key), 0)),
  );
  const max = Math.max(0, ...perBucket.map((values) => values.reduce((a, b) => a + b, 0)));
  const [width, height, left, bottom] = [760, 200, 50, 28];
  const slot = (width - left - 10) / Math.max(1, buckets.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number): number => (max === 0 ? 0 : (v / max) * (height - bottom - 10));
  const rects = perBucket.flatMap((values, i) => {
    let base = 0;
    return values.map((v, k) => {
      const h = y(v);
      const rect =
        v > 0
          ? `<rect x="${(left + i * slot + (slot - bar) / 2).toFixed(1)}" y="${(height - bottom - base - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[k % COLORS.length]}"><title>${escape(keys[k] ?? '')}: ${v}</title></rect>`
          : '';
      base += h;
      return rect;
    });
  });
  const ticks = buckets
    .map((bucket, i) =>
      i % Math.ceil(buckets.length / 12) === 0
        ? `<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${height - 10}" text-anchor="middle">${escape(label(bucket))}</text>`
        : '',
    )
    .join('');
  const legend = keys
    .map((key, k) => `<li><span class="swatch" style="background:${COLORS[k % COLORS.length]}"></span>${escape(key)}</li>`)
    .join('');
  const rows = withMessages
    .flatMap((r) => [
      ...Object.entries(r.total.by_intent)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(
          ([name, n]) =>
            `<tr><th scope="row">${escape(r.name)}</th><td>${escape(name)}</td><td>${n}</td><td>${percent(n / r.total.messages)}</td></tr>`,
        ),
      `<tr><th scope="row">${escape(r.name)}</th><td><em>asked to clarify</em></td><td>${r.total.clarifications}</td><td>${percent(r.total.clarification_rate)}</td></tr>`,
      `<tr><th scope="row">${escape(r.name)}</th><td><em>none of its intents</em></td><td>${r.total.unknown}</td><td>${percent(r.total.unknown / r.total.messages)}</td></tr>`,
    ])
    .join('');
  return `<section><h2>Intents: what customers come for</h2><ul class="legend">${legend}</ul>
<figure><figcaption>Classified messages by intent</figcaption>
<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="Classified messages by intent">
<line x1="${left}" y1="${height - bottom}" x2="${width - 10}" y2="${height - bottom}" stroke="#c8cdd8"/>
<text x="${left - 8}" y="16" text-anchor="end">${max}</text><text x="${left - 8}" y="${height - bottom}" text-anchor="end">0</text>
${rects.join('')}${ticks}</svg></figure>
<table><thead><tr><th>Agent</th><th>Intent</th><th>Messages</th><th>Share</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}
