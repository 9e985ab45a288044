import { MemoryDomainError } from './errors.js';

/**
 * Knowledge sources cut into chunks by heading (docs/data-model.md#retrieval): each chunk carries the path of headings it sits
 * under, so a retrieved passage can be cited as "Returns › Refund window". Chunk ids are stable — the same
 * source id, heading path and position under that path give the same id on every re-ingestion — so a changed
 * document replaces exactly the chunks it changed the text of, and citations of unchanged parts survive.
 */

export type SourceFormat = 'markdown' | 'html' | 'text';
export const SOURCE_FORMATS: readonly SourceFormat[] = ['markdown', 'html', 'text'];

export interface KnowledgeChunk {
  chunkId: string;
  sourceId: string;
  /** Headings from the outermost to the one the chunk sits under, joined with " › "; the title when there is none. */
  heading: string;
  text: string;
  /** Position of the chunk in the source, from 0. */
  ordinal: number;
}

export interface ChunkingOptions {
  /** A section longer than this is cut at paragraph (then sentence, then hard) boundaries. */
  maxChars?: number;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1_500;

/** FNV-1a 32-bit, in hex: a fixed hash so a chunk id is the same on every machine and release. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

interface Section {
  headings: string[];
  body: string;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** HTML to the markdown subset the splitter reads: headings become `#` lines, blocks become paragraphs, the rest is text. */
export function htmlToMarkdown(html: string): string {
  const withoutInvisible = html.replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, '').replace(/<!--[\s\S]*?-->/g, '');
  const headings = withoutInvisible.replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_, level: string, inner: string) => {
    const text = inner
      .replace(/<[^>]*>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    return `\n\n${'#'.repeat(Number(level))} ${text}\n\n`;
  });
  const blocks = headings.replace(/<\/?(p|div|section|article|li|ul|ol|table|tr|br|blockquote|pre)\b[^>]*>/gi, '\n\n');
  return decodeEntities(blocks.replace(/<[^>]*>/g, ''))
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n');
}

/** Splits markdown into sections at ATX headings (`#` … `######`), ignoring `#` lines inside fenced code. */
function markdownSections(markdown: string): Section[] {
  const sections: Section[] = [];
  let path: string[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = (): void => {
    const body = lines.join('\n').trim();
    if (body !== '') sections.push({ headings: path, body });
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fenceMark) fence = fence === undefined ? fenceMark : fence === fenceMark ? undefined : fence;
    const heading = fence === undefined && !fenceMark ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (heading?.[1] && heading[2]) {
      flush();
      const level = heading[1].length;
      path = [...path.slice(0, level - 1), heading[2].trim()];
      // A skipped level ("#" then "###") leaves no empty slot in the path.
      path = path.filter((h) => h !== undefined && h !== '');
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections;
}

/** Cuts a too-long body at paragraph boundaries, then sentences, then hard at `maxChars`. */
function pieces(body: string, maxChars: number): string[] {
  if (body.length <= maxChars) return [body];
  const units = body
    .split(/\n\s*\n/)
    .flatMap((paragraph) => (paragraph.length <= maxChars ? [paragraph] : paragraph.split(/(?<=[.!?])\s+/)))
    .flatMap((unit) => {
      const cut: string[] = [];
      for (let i = 0; i < unit.length; i += maxChars) cut.push(unit.slice(i, i + maxChars));
      return cut;
    })
    .map((unit) => unit.trim())
    .filter((unit) => unit !== '');
  const out: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current !== '' && current.length + 2 + unit.length > maxChars) {
      out.push(current);
      current = unit;
    } else current = current === '' ? unit : `${current}\n\n${unit}`;
  }
  if (current !== '') out.push(current);
  return out;
}

/** The chunks of a source, in order. Throws `MEMORY.INVALID_SOURCE` for an unknown format or a source with no text. */
export function chunkSource(
  source: { sourceId: string; title: string; format: SourceFormat; content: string },
  options: ChunkingOptions = {},
): KnowledgeChunk[] {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHUNK_CHARS;
  if (!SOURCE_FORMATS.includes(source.format))
    throw new MemoryDomainError('MEMORY.INVALID_SOURCE', `format must be one of ${SOURCE_FORMATS.join(', ')}`);
  const markdown = source.format === 'html' ? htmlToMarkdown(source.content) : source.content;
  const sections = source.format === 'text' ? [{ headings: [], body: source.content.trim() }] : markdownSections(markdown);
  const seen = new Map<string, number>();
  const chunks: KnowledgeChunk[] = [];
  for (const section of sections) {
    const heading = section.headings.length > 0 ? section.headings.join(' › ') : source.title;
    for (const text of pieces(section.body, maxChars)) {
      const nth = seen.get(heading) ?? 0;
      seen.set(heading, nth + 1);
      chunks.push({
        chunkId: `${source.sourceId}:${fnv1a(`${heading}\u0000${nth}`)}`,
        sourceId: source.sourceId,
        heading,
        text,
        ordinal: chunks.length,
      });
    }
  }
  if (chunks.length === 0) throw new MemoryDomainError('MEMORY.INVALID_SOURCE', 'content must contain some text');
  return chunks;
}
