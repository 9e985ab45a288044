import { compileUserPattern } from '@tenet/json-schema';
import type { ToolSpec } from '../tasks/match-guidelines.js';
import { STOP_WORDS } from '@tenet/text';
import { terms } from './lexicon.js';

/**
 * Reads a tool's arguments from what the customer said, by simple rules — the offline stand-in for a model's
 * argument extraction. For each property of the tool's `parameters` schema, the customer's turns are searched
 * latest first and the first rule that yields a value wins:
 *
 * 1. `enum`: an allowed value written in the message (case-insensitive, whole words) → that value.
 * 2. By name or `format`: an e-mail address for `email`/`format: email`; a phone number (7+ digits) for
 *    `phone`/`mobile`/`tel`; an http(s) URL for `url`/`link`/`website`/`format: uri`; an ISO date
 *    (YYYY-MM-DD) for `date`/`format: date`; "my name is X" / "I'm X" (capitalised) for `name` properties.
 * 3. Labelled value: a word of the property's name (stemmed and with synonym families, so `order_id` is found
 *    as "order" or "purchase"; generic words like id/number/code are skipped) followed, within three filler
 *    words ("is", "#", "number", ":" …), by a value of the property's kind: a number for `integer`/`number`,
 *    a token with a digit for id-like strings (names with id/number/no/code/ref), for other strings only a
 *    value introduced by "is", ":", "=", "called" or "named" (a quoted phrase or one non-stop-word token).
 *    A number may also stand right before the name ("3 tickets").
 * 4. The tool's only id-like property takes the message's only id-like token (a 3+ character token with a
 *    digit, e.g. "12345" or "A-77"), named or not.
 *
 * A value must satisfy the property's `pattern` when it has one. Properties no rule finds are left out (a
 * model is told never to guess either), as are booleans, objects and arrays.
 */
export function extractToolArguments(tool: ToolSpec, customerTurnsLatestFirst: readonly string[]): Record<string, unknown> {
  const properties = propertiesOf(tool.parameters);
  const idLikeProperties = properties.filter((p) => p.kind === 'id');
  const args: Record<string, unknown> = {};
  for (const property of properties) {
    for (const text of customerTurnsLatestFirst) {
      const value =
        findValue(property, text) ?? (idLikeProperties.length === 1 && property.kind === 'id' ? onlyIdLikeToken(text) : undefined);
      if (value !== undefined && satisfiesPattern(property, value)) {
        args[property.name] = value;
        break;
      }
    }
  }
  return args;
}

type Kind = 'integer' | 'number' | 'id' | 'string' | 'other';

interface Property {
  name: string;
  kind: Kind;
  /** Canonical forms of the words of the name that say what it is about. */
  keywords: Set<string>;
  words: string[];
  enumValues: string[];
  format: string | undefined;
  pattern: string | undefined;
}

const ID_WORDS = new Set(['id', 'number', 'num', 'no', 'nr', 'code', 'ref', 'reference']);
const FILLER = new Set([
  'is',
  'was',
  'are',
  '=',
  ':',
  '#',
  'of',
  'number',
  'no',
  'no.',
  'nr',
  'id',
  'code',
  'ref',
  'the',
  'my',
  'a',
  'an',
  'its',
  "it's",
  'it',
]);
const LABELS = new Set(['is', ':', '=', 'called', 'named']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `orderId`, `order_id`, `order-id` → order, id. */
const nameWords = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

function propertiesOf(parameters: unknown): Property[] {
  const properties = isRecord(parameters) && isRecord(parameters['properties']) ? parameters['properties'] : {};
  return Object.entries(properties).map(([name, raw]) => {
    const schema = isRecord(raw) ? raw : {};
    const types = (Array.isArray(schema['type']) ? schema['type'] : [schema['type']]).filter(
      (t): t is string => typeof t === 'string' && t !== 'null',
    );
    const words = nameWords(name);
    const topical = words.filter((w) => !ID_WORDS.has(w));
    const type = types[0];
    const kind: Kind =
      type === 'integer' || type === 'number'
        ? type
        : type === 'string' || type === undefined
          ? words.some((w) => ID_WORDS.has(w))
            ? 'id'
            : 'string'
          : 'other';
    return {
      name,
      kind,
      keywords: new Set((topical.length ? topical : words).flatMap((w) => terms(w).concat(w))),
      words,
      enumValues: Array.isArray(schema['enum']) ? schema['enum'].filter((v): v is string => typeof v === 'string') : [],
      format: typeof schema['format'] === 'string' ? schema['format'] : undefined,
      pattern: typeof schema['pattern'] === 'string' ? schema['pattern'] : undefined,
    };
  });
}

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;
const PHONE = /\+?\d[\d\s().-]{5,}\d/g;
const URL_PATTERN = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
// Case-sensitive on purpose: the name must be capitalised ("I'm Ada", not "I'm hungry"; "Ada", not "Ada and").
const PERSON_NAME = /\b(?:[Mm]y name is|[Nn]ame is|[Nn]ame:|I am|I[’']m|[Tt]his is)\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?)/u;
const NUMBER = /^[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function findValue(property: Property, text: string): unknown {
  for (const allowed of property.enumValues) {
    if (new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(allowed)}(?![\\p{L}\\p{N}])`, 'iu').test(text)) return allowed;
  }
  if (property.kind === 'other') return undefined;
  const has = (...words: string[]): boolean => property.words.some((w) => words.includes(w));
  if (property.format === 'email' || has('email', 'mail')) return EMAIL.exec(text)?.[0];
  if (has('phone', 'mobile', 'tel', 'telephone')) {
    const phone = [...text.matchAll(PHONE)].map((m) => m[0].trim()).find((p) => p.replace(/\D/g, '').length >= 7 && !ISO_DATE.test(p));
    return phone?.replace(/[^\d+]/g, '');
  }
  if (property.format === 'uri' || property.format === 'url' || has('url', 'link', 'website')) return URL_PATTERN.exec(text)?.[0];
  if (property.format === 'date' || has('date')) return ISO_DATE.exec(text)?.[0];
  if (property.kind === 'string' && has('name')) {
    const name = PERSON_NAME.exec(text)?.[1];
    if (name) return name;
  }
  return labelledValue(property, text);
}

interface Token {
  /** The token without surrounding quotes and punctuation. */
  raw: string;
  word: string;
  /** Where the unstripped token starts in the text. */
  at: number;
}

function tokensOf(text: string): Token[] {
  return [...text.matchAll(/\S+/g)]
    .map((m) => ({ raw: m[0].replace(/^["'“‘(]+|["'”’),.;!?]+$/g, ''), at: m.index }))
    .filter((t) => t.raw !== '')
    .map((t) => ({ ...t, word: t.raw.toLowerCase() }));
}

const isIdLike = (token: string): boolean => /^[A-Za-z0-9][A-Za-z0-9_-]{2,}$/.test(token) && /\d/.test(token);

function valueOfKind(kind: Kind, raw: string): unknown {
  const token = raw.replace(/^#/, '');
  if (kind === 'integer' || kind === 'number') {
    if (!NUMBER.test(token)) return undefined;
    const n = Number(token.replace(/^[$€£]/, '').replace(/,/g, ''));
    return kind === 'integer' && !Number.isInteger(n) ? undefined : n;
  }
  if (kind === 'id') return isIdLike(token) ? token : undefined;
  return undefined;
}

function labelledValue(property: Property, text: string): unknown {
  const tokens = tokensOf(text);
  const isKeyword = (token: Token): boolean =>
    property.keywords.has(token.word.replace(/:$/, '')) || terms(token.word).some((f) => property.keywords.has(f));
  for (const [i, token] of tokens.entries()) {
    if (!isKeyword(token)) continue;
    const value = property.kind === 'string' ? labelledString(tokens, i, text) : numberOrIdNear(property.kind, tokens, i);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** "order 12345", "order number is #12345", "quantity: 3", "3 tickets". */
function numberOrIdNear(kind: Kind, tokens: Token[], keyword: number): unknown {
  for (const token of tokens.slice(keyword + 1, keyword + 5)) {
    const value = valueOfKind(kind, token.raw);
    if (value !== undefined) return value;
    if (!FILLER.has(token.word)) break;
  }
  const before = tokens[keyword - 1];
  return before && (kind === 'integer' || kind === 'number') ? valueOfKind(kind, before.raw) : undefined;
}

/** "username is alice42", "username: alice42", "nickname is 'Captain Ada'": the quoted phrase or the one token after the label. */
function labelledString(tokens: Token[], keyword: number, text: string): string | undefined {
  let valueAt = keyword + 1;
  if (!tokens[keyword]?.raw.endsWith(':')) {
    if (!LABELS.has(tokens[keyword + 1]?.word ?? '')) return undefined;
    valueAt = keyword + 2;
  }
  const value = tokens[valueAt];
  if (!value) return undefined;
  const quoted = /^["'“‘]([^"'”’]+)["'”’]/.exec(text.slice(value.at))?.[1]?.trim();
  if (quoted) return quoted;
  return STOP_WORDS.has(value.word) ? undefined : value.raw;
}

function onlyIdLikeToken(text: string): string | undefined {
  const ids = [
    ...new Set(
      tokensOf(text)
        .map((t) => t.raw.replace(/^#/, ''))
        .filter(isIdLike),
    ),
  ];
  return ids.length === 1 ? ids[0] : undefined;
}

function satisfiesPattern(property: Property, value: unknown): boolean {
  if (property.pattern === undefined || typeof value !== 'string') return true;
  // The schema comes from a tool's author: RE2 (linear time), and a pattern it cannot compile constrains nothing.
  const compiled = compileUserPattern(property.pattern);
  return compiled.ok ? compiled.pattern.test(value) : true;
}
