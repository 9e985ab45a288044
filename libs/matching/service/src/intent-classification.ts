import type { IntentClassificationV1, IntentToMatchV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { checkArguments } from '@tenet/json-schema';
import type { IntentAnswer } from '@tenet/llm';
import type { LexicalIndexCache } from './lexical-index-cache.js';
import { prefilterQuery } from './prefilter-query.js';

/**
 * Intents offered to one matching call, at most: with more, the prefilter keeps the most similar to the
 * conversation (BM25 over name, description, keywords and examples, index cached per intent set) — so a call's
 * size stays flat with hundreds of intents, as the guideline prefilter keeps it flat with hundreds of guidelines.
 */
export const INTENT_PREFILTER_K = 8;

const intentText = (intent: IntentToMatchV1): string =>
  [intent.name.replace(/_/g, ' '), intent.description, ...intent.keywords, ...intent.examples].join('\n');

/** The intents the call classifies into: all of them up to `INTENT_PREFILTER_K`, else the k most similar (ties: given order). */
export function intentsForCall(
  intents: readonly IntentToMatchV1[],
  request: Pick<MatchGuidelinesRequestV1, 'message' | 'history' | 'terms'>,
  indexes: LexicalIndexCache,
): IntentToMatchV1[] {
  if (intents.length <= INTENT_PREFILTER_K) return [...intents];
  const query = prefilterQuery({ message: request.message, history: request.history, terms: request.terms ?? [] });
  const { index } = indexes.indexFor(intents.map((intent) => ({ id: `intent:${intent.name}`, text: intentText(intent) })));
  const scores = index.score(query.parts);
  const scoreOf = (intent: IntentToMatchV1): number => scores.get(`intent:${intent.name}`) ?? 0;
  const order = new Map(intents.map((intent, i) => [intent.name, i]));
  return [...intents]
    .sort((a, b) => scoreOf(b) - scoreOf(a) || (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0))
    .slice(0, INTENT_PREFILTER_K);
}

const clamp = (n: number): number => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/**
 * The model's answer as the reply carries it: a name the call was not offered is UNKNOWN (its alternatives kept
 * if offered), confidences clamped to 0..1, and parameters that break the intent's schema are not passed on
 * (a tool would refuse them) — the intent then stands with no parameters.
 */
export function classifiedIntent(
  answer: IntentAnswer,
  offered: readonly IntentToMatchV1[],
  params: Record<string, unknown>,
): IntentClassificationV1 {
  const byName = new Map(offered.map((intent) => [intent.name, intent]));
  const intent = byName.get(answer.name);
  const alternatives = answer.alternatives
    .filter((a) => byName.has(a.name) && a.name !== answer.name)
    .map((a) => ({ name: a.name, confidence: clamp(a.confidence) }));
  if (!intent) return { name: 'UNKNOWN', confidence: clamp(answer.confidence), extracted_params: {}, alternatives };
  const valid = !intent.parameters || checkArguments(intent.parameters, params).ok;
  return { name: intent.name, confidence: clamp(answer.confidence), extracted_params: valid ? params : {}, alternatives };
}
