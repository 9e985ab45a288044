/**
 * Agent replies are markdown (what the composer writes); each platform has its own limit and markup. Pure text
 * functions: split at the platform's limit, then map markdown to the platform's format.
 */

export type MarkupTarget = 'slack' | 'telegram' | 'whatsapp' | 'plain' | 'markdown';

/** Platform limits on one message's text (Telegram 4096, Slack 40 000 — Slack recommends ≤ 4000 —, WhatsApp 4096). */
export const MESSAGE_LIMITS: Readonly<Record<string, number>> = {
  telegram: 4096,
  slack: 4000,
  whatsapp: 4096,
  webhook: 16_000,
  widget: 16_000,
};

/**
 * Splits `text` into parts of at most `limit` UTF-16 code units, preferring a paragraph break, then a line
 * break, then a space, and never cutting a surrogate pair. Parts keep their order; none is empty.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError(`limit must be an integer ≥ 2, got ${limit}`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    let cut = lastBreak(window, '\n\n');
    if (cut <= 0) cut = lastBreak(window, '\n');
    if (cut <= 0) cut = lastBreak(window, ' ');
    if (cut <= 0) cut = limit;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // a high surrogate stays with its pair
    const head = rest.slice(0, cut).trimEnd();
    if (head.length > 0) parts.push(head);
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

function lastBreak(window: string, separator: string): number {
  const at = window.lastIndexOf(separator);
  return at < 0 ? -1 : at + separator.length;
}

const escapeHtml = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Markdown (bold, italic, strike, inline code, code blocks, links, headings) to the platform's markup. */
export function formatFor(target: MarkupTarget, markdown: string): string {
  switch (target) {
    case 'markdown':
      return markdown;
    case 'plain':
      return inline(markdown, {
        bold: (t) => t,
        italic: (t) => t,
        strike: (t) => t,
        code: (t) => t,
        block: (t) => t,
        link: (t, u) => (t === u ? u : `${t} (${u})`),
        escape: (t) => t,
      });
    case 'slack':
      // mrkdwn: *bold*, _italic_, ~strike~, <url|text>; &, < and > must be escaped.
      return inline(markdown, {
        bold: (t) => `*${t}*`,
        italic: (t) => `_${t}_`,
        strike: (t) => `~${t}~`,
        code: (t) => `\`${t}\``,
        block: (t) => `\`\`\`${t}\`\`\``,
        link: (t, u) => `<${u}|${t}>`,
        escape: escapeHtml,
      });
    case 'telegram':
      // parse_mode HTML: the subset Telegram accepts, everything else escaped.
      return inline(markdown, {
        bold: (t) => `<b>${t}</b>`,
        italic: (t) => `<i>${t}</i>`,
        strike: (t) => `<s>${t}</s>`,
        code: (t) => `<code>${t}</code>`,
        block: (t) => `<pre>${t}</pre>`,
        link: (t, u) => `<a href="${u.replaceAll('"', '&quot;')}">${t}</a>`,
        escape: escapeHtml,
      });
    case 'whatsapp':
      return inline(markdown, {
        bold: (t) => `*${t}*`,
        italic: (t) => `_${t}_`,
        strike: (t) => `~${t}~`,
        code: (t) => `\`${t}\``,
        block: (t) => `\`\`\`${t}\`\`\``,
        link: (t, u) => (t === u ? u : `${t} (${u})`),
        escape: (t) => t,
      });
  }
}

interface Markup {
  bold(text: string): string;
  italic(text: string): string;
  strike(text: string): string;
  code(text: string): string;
  block(text: string): string;
  link(text: string, url: string): string;
  escape(text: string): string;
}

/** Code spans and blocks are taken out first (their content is literal), then the inline markup is rewritten. */
function inline(markdown: string, m: Markup): string {
  const literals: string[] = [];
  const hold = (s: string): string => `\u0000${literals.push(s) - 1}\u0000`;
  let text = markdown.replace(/```(?:[\w-]*\n)?([\s\S]*?)```/g, (_, body: string) => hold(m.block(m.escape(body))));
  text = text.replace(/`([^`\n]+)`/g, (_, body: string) => hold(m.code(m.escape(body))));
  text = text.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label: string, url: string) => hold(m.link(m.escape(label), url)));
  text = m.escape(text);
  // A heading becomes bold markdown first, so the bold rule (not the italic one) reads it.
  text = text.replace(/^#{1,6}[ \t]+(.+)$/gm, (_, t: string) => `**${t}**`);
  // Italic before bold: `**x**` is not italic (its inner `*` are excluded), and bold's output must not be re-read as italic.
  text = text.replace(
    /(^|[^\w*])\*([^*\n]+)\*(?!\w)|(^|[^\w_])_([^_\n]+)_(?!\w)/g,
    (_, p1?: string, a?: string, p2?: string, b?: string) => `${p1 ?? p2 ?? ''}${m.italic(a ?? b ?? '')}`,
  );
  text = text.replace(/\*\*([^*\n]+)\*\*|__([^_\n]+)__/g, (_, a?: string, b?: string) => m.bold(a ?? b ?? ''));
  text = text.replace(/~~([^~\n]+)~~/g, (_, t: string) => m.strike(t));
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u0000(\d+)\u0000/g, (_, i: string) => literals[Number(i)] ?? '');
}
