import type { CannedResponse, ComposeReplyInput, ComposeReplyOutput } from '../tasks/compose-reply.js';
import type { ToolOutcome } from '../tasks/tool-results.js';
import { applyGlossary, terms } from './lexicon.js';
import { phrasesFor, toCustomer } from './phrasing.js';

/** What a condition is about, said to the customer: "The customer wants to cancel their order" → "cancel your order". */
function topicOf(condition: string): string {
  const topic = condition
    .trim()
    .replace(/[.!?]+$/, '')
    .replace(/^(?:when\s+|if\s+)?(?:the\s+)?(?:customer|user|client)\s+(?:is\s+)?/i, '')
    .replace(
      /^(?:asks?|asking|wants?|wanting|would like|mentions?|inquires?|talks?|says?|needs?|requests?)\s+(?:about\s+|for\s+|to\s+|that\s+)?/i,
      '',
    );
  return toCustomer(topic);
}

const joinedWithOr = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')}, or ${items.at(-1) ?? ''}`;

function disambiguationQuestion(candidates: { condition: string }[]): string {
  const topics = [...new Set(candidates.map((c) => topicOf(c.condition)))];
  return topics.length === 1
    ? `Just to be sure I help with the right thing: do you mean ${topics[0] ?? ''}?`
    : `Just to be sure I help with the right thing, which one do you mean: ${joinedWithOr(topics)}?`;
}

const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
const spoken = (key: string): string => key.replace(/[_-]+/g, ' ').trim();

/**
 * What a tool found, said plainly: its text when it returned text (or an object with a `message`/`summary`
 * text), else its scalar fields ("order id 55555, status shipped"); a failed call is owned up to, never filled in.
 */
function toolSentence(result: ToolOutcome): string | undefined {
  if (result.status === 'failed') return "I'm sorry, I couldn't look that up just now. Please try again in a moment.";
  const data = result.data;
  if (typeof data === 'string' && data.trim()) return sentence(data);
  if (typeof data === 'number' || typeof data === 'boolean') return sentence(`Here is what I found: ${String(data)}`);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const record = data as Record<string, unknown>;
  for (const key of ['message', 'summary']) if (typeof record[key] === 'string' && record[key].trim()) return sentence(record[key]);
  const fields = Object.entries(record).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  return fields.length ? sentence(`Here is what I found: ${fields.map(([k, v]) => `${spoken(k)} ${String(v)}`).join(', ')}`) : undefined;
}

/** A passage answers the message when it shares at least this share of the message's topic terms. */
const MIN_PASSAGE_OVERLAP = 0.34;
const MAX_PASSAGE_SENTENCES = 2;

/**
 * The knowledge passage that answers the message, said plainly: the passage sharing the most of the message's
 * topic terms (at least a third of them), and its one or two sentences sharing the most terms, in their order.
 */
function knowledgeSentence(input: ComposeReplyInput): { text: string; chunkId: string } | undefined {
  const asked = new Set(terms(applyGlossary(input.message, input.terms)));
  if (asked.size === 0 || !input.knowledge?.length) return undefined;
  const share = (text: string): number => {
    const found = new Set(terms(applyGlossary(text, input.terms)));
    let shared = 0;
    for (const term of asked) if (found.has(term)) shared++;
    return shared / asked.size;
  };
  let best: { passage: NonNullable<ComposeReplyInput['knowledge']>[number]; score: number } | undefined;
  for (const passage of input.knowledge) {
    const score = share(`${passage.heading} ${passage.text}`);
    if (score >= MIN_PASSAGE_OVERLAP && (!best || score > best.score)) best = { passage, score };
  }
  if (!best) return undefined;
  // Paragraphs and list items are units; a line break inside a paragraph is only wrapping.
  const sentences = best.passage.text
    .split(/\n\s*\n|\n(?=\s*[-*]\s)/)
    .map((paragraph) => paragraph.replace(/^\s*[-*]\s+/, '').replace(/\s*\n\s*/g, ' '))
    .flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+/))
    .map((t) => t.trim())
    .filter((t) => t !== '' && !/^#/.test(t));
  const ranked = sentences
    .map((text, index) => ({ text, index, score: share(text) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, MAX_PASSAGE_SENTENCES)
    .sort((a, b) => a.index - b.index);
  const said = (ranked.length > 0 ? ranked : sentences.slice(0, 1).map((text) => ({ text }))).map((s) => sentence(s.text)).join(' ');
  const section = best.passage.heading.split(' › ').at(-1) ?? best.passage.heading;
  return { text: `From our ${best.passage.title} (${section}): ${said}`, chunkId: best.passage.chunk_id };
}

/** "What is my email?" answered from what the customer told before (a fact whose predicate the question names). */
function factSentence(input: ComposeReplyInput): string | undefined {
  if (!input.facts?.length || !/\?|^\s*(what|which|do you|remind)/i.test(input.message) || !/\bmy\b/i.test(input.message)) return undefined;
  const asked = new Set(terms(input.message));
  const fact = input.facts.find((f) => terms(f.predicate.replace(/_/g, ' ')).some((t) => asked.has(t)));
  return fact ? sentence(`You told me your ${spoken(fact.predicate)} is ${fact.object}`) : undefined;
}

interface Sentence {
  text: string;
  /** The part of a matched action it says; none for the disambiguation question and the polite fallback. */
  source?: string;
}

/** The reply in the agent's own words: the sentences of each matched action (each said once), the disambiguation question last. */
function fluidReply(input: ComposeReplyInput): { sentences: Sentence[]; cited: string[]; chunks: string[] } {
  const candidates = input.disambiguation?.candidates ?? [];
  const sentences: Sentence[] = [];
  for (const { action } of input.matched) {
    for (const phrase of phrasesFor(action, input.agentName)) if (!sentences.some((s) => s.text === phrase.text)) sentences.push(phrase);
  }
  // What the tools found comes right after the actions that asked for them.
  for (const result of input.tool_results ?? []) {
    const text = toolSentence(result);
    if (text && !sentences.some((s) => s.text === text)) sentences.push({ text });
  }
  // What the agent's documents say about the question, then what the customer told before, if asked.
  const passage = knowledgeSentence(input);
  if (passage) sentences.push({ text: passage.text });
  const remembered = factSentence(input);
  if (remembered) sentences.push({ text: remembered });
  if (candidates.length > 0) sentences.push({ text: disambiguationQuestion(candidates) });
  // Nothing to follow but a relevant capability: offer it (the most relevant one, as the matcher ranked them).
  const capability = input.capabilities?.[0];
  if (sentences.length === 0 && capability)
    sentences.push({ text: `I can help with ${capability.title.toLowerCase()}: ${capability.description}` });
  // Nothing to follow: ask for more, introducing the agent only if it has not spoken in this conversation yet.
  if (sentences.length === 0) {
    const introduced = input.history.some((turn) => turn.role === 'agent');
    sentences.push({
      text: introduced
        ? 'Thanks. Could you tell me a little more about what you need?'
        : `Thanks for your message. I'm ${input.agentName}; could you tell me a little more about what you need?`,
    });
  }
  return { sentences, cited: [...new Set(input.matched.map((m) => m.guideline_id))], chunks: passage ? [passage.chunkId] : [] };
}

interface Template {
  id: string;
  text: string;
  terms: Set<string>;
}

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

/**
 * The canned responses whose fields all have values, rendered, with the terms they are about (of the rendered
 * text and the field names). A template with a field nobody supplied cannot be sent, so it is no candidate.
 */
function renderedTemplates(input: ComposeReplyInput): Template[] {
  const values = input.field_values ?? {};
  const has = (field: string): boolean => Object.hasOwn(values, field);
  return (input.canned_responses ?? []).flatMap((response: CannedResponse) => {
    const fields = new Set([...response.fields, ...[...response.value.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '')]);
    if (![...fields].every(has)) return [];
    const text = response.value.replace(PLACEHOLDER, (_, field: string) => values[field] ?? '');
    // A field's name says what the slot holds ("status"), which its value ("shipped") may not.
    return [{ id: response.id, text, terms: new Set(terms(applyGlossary(`${text} ${[...fields].join(' ')}`, input.terms))) }];
  });
}

/** Cosine of two term sets: 1 when they are the same words, 0 when they share none. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}

/** The best-overlapping template (the earlier one on a tie) and its score. */
function best(templates: Template[], scoreOf: (t: Template) => number): { template: Template; score: number } | undefined {
  let found: { template: Template; score: number } | undefined;
  for (const template of templates) {
    const score = scoreOf(template);
    if (score > 0 && (!found || score > found.score)) found = { template, score };
  }
  return found;
}

/** In canned_fluid mode a template replaces the fluid reply only when it says most of the same thing. */
const CANNED_FLUID_MIN_OVERLAP = 0.35;
/** In composited_canned mode a template takes the place of one sentence when it is about the same thing. */
const COMPOSITED_MIN_OVERLAP = 0.3;

/**
 * The reply, in the requested composition mode:
 * - `fluid` (default): each matched action becomes its sentences (greeting, quoted line, statement, request,
 *   question or promise: see `phrasesFor`), each said once, citing the matched ids; a polite question when
 *   nothing matched; a disambiguation question last.
 * - canned modes score each renderable template by its term overlap (cosine of stemmed, synonym-merged term
 *   sets) with the matched actions, plus a quarter of its overlap with the customer's message (the message
 *   alone when nothing matched). `canned_fluid` sends the best template when it overlaps ≥ 0.35, else the
 *   fluid reply; `strict_canned` sends the best template that overlaps at all, else `canned_response_id` ''
 *   (with the fluid reply as the unsent message) so that the caller sends its no-match response;
 *   `composited_canned` replaces each fluid sentence by the template that overlaps the part of the action it
 *   says ≥ 0.3.
 * - A disambiguation question is only ever sent through a template in strict mode, and only by one that
 *   overlaps every candidate's condition (a template that offers the choices).
 */
export function composeReply(input: ComposeReplyInput): ComposeReplyOutput {
  const reply = composeInMode(input);
  return { ...reply, cited_chunk_ids: reply.cited_chunk_ids ?? [] };
}

function composeInMode(input: ComposeReplyInput): ComposeReplyOutput {
  const mode = input.composition_mode ?? 'fluid';
  const fluid = fluidReply(input);
  const fluidAnswer: ComposeReplyOutput = {
    message: fluid.sentences.map((s) => s.text).join(' '),
    cited_guideline_ids: fluid.cited,
    canned_response_id: '',
    cited_chunk_ids: fluid.chunks,
  };
  if (mode === 'fluid') return fluidAnswer;

  const termsOf = (text: string): Set<string> => new Set(terms(applyGlossary(text, input.terms)));
  const templates = renderedTemplates(input);
  const candidates = input.disambiguation?.candidates ?? [];
  const message = termsOf(input.message);
  const actions = termsOf(input.matched.map((m) => m.action).join('\n'));
  const scoreOf = (t: Template): number =>
    input.matched.length ? overlap(t.terms, actions) + 0.25 * overlap(t.terms, message) : overlap(t.terms, message);
  const asTemplate = (template: Template): ComposeReplyOutput => ({
    message: template.text,
    cited_guideline_ids: input.matched.filter((m) => overlap(template.terms, termsOf(m.action)) > 0).map((m) => m.guideline_id),
    canned_response_id: template.id,
  });

  if (candidates.length > 0) {
    if (mode !== 'strict_canned') return fluidAnswer;
    const offersChoices = templates.filter((t) => candidates.every((c) => overlap(t.terms, termsOf(c.condition)) > 0));
    const choice = best(offersChoices, (t) => candidates.reduce((sum, c) => sum + overlap(t.terms, termsOf(c.condition)), 0));
    return choice ? { ...asTemplate(choice.template), cited_guideline_ids: [] } : { ...fluidAnswer, cited_guideline_ids: [] };
  }

  switch (mode) {
    case 'canned_fluid': {
      const choice = best(templates, scoreOf);
      return choice && choice.score >= CANNED_FLUID_MIN_OVERLAP ? asTemplate(choice.template) : fluidAnswer;
    }
    case 'strict_canned': {
      const choice = best(templates, scoreOf);
      return choice ? asTemplate(choice.template) : { ...fluidAnswer, cited_guideline_ids: [] };
    }
    case 'composited_canned': {
      const used: Template[] = [];
      const parts = fluid.sentences.map((sentence) => {
        const topic = sentence.source !== undefined ? termsOf(sentence.source) : message;
        const choice = best(templates, (t) => overlap(t.terms, topic));
        if (!choice || choice.score < COMPOSITED_MIN_OVERLAP) return sentence.text;
        used.push(choice.template);
        return choice.template.text;
      });
      const distinct = [...new Set(parts)];
      const single = distinct.length === 1 && used[0]?.text === distinct[0] ? used[0] : undefined;
      return { message: distinct.join(' '), cited_guideline_ids: fluid.cited, canned_response_id: single?.id ?? '' };
    }
  }
}
