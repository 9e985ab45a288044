/**
 * Intents (ADR 0031, docs/data-model.md#intents): what the customer wants, in words a product team reports on. An intent is
 * classified in the turn's guideline-matching call; this module holds the rules around that classification —
 * what an intent is, the agent's settings, and what a classification leads to (act, clarify, or fall back).
 */

/** Names reserved for the classifier's own outcomes; no defined intent may take them. */
export const UNKNOWN_INTENT = 'UNKNOWN';
export const CLARIFICATION_NEEDED = 'CLARIFICATION_NEEDED';
export const RESERVED_INTENT_NAMES: ReadonlySet<string> = new Set([UNKNOWN_INTENT, CLARIFICATION_NEEDED]);

/** An intent name: an identifier a report and a tool mapping can use as is. */
export const INTENT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** An intent as stored and served by `/intents`. */
export interface IntentView {
  id: string;
  name: string;
  description: string;
  /** Customer messages that mean this intent (the classifier compares messages with them). */
  examples: string[];
  /** Words or phrases that point to this intent. */
  keywords: string[];
  /** JSON Schema (an object schema) of the parameters extracted from the conversation; `null` when none. */
  parameters: Record<string, unknown> | null;
  /** What a recognised intent runs: a tool of the agent (with the extracted parameters), a journey, or nothing. */
  tool: string | null;
  journey_id: string | null;
  /** `agent:<id>` scopes it to one agent, another tag to the agents carrying it; untagged = every agent of the workspace. */
  tags: string[];
  creation_utc: string;
}

/** An agent's intent settings (`intents` on the agent). */
export interface IntentSettings {
  /** Below this confidence of the best intent the agent asks which one the customer means. */
  clarify_below: number;
  /** When the best two intents are this close (or closer), the agent asks which one the customer means. */
  margin: number;
  /** The reply when the message is none of the agent's intents and no guideline applies either. */
  fallback: string;
}

export const DEFAULT_INTENT_SETTINGS: IntentSettings = {
  clarify_below: 0.5,
  margin: 0.1,
  fallback: "I'm sorry, I can't help with that here. Could you tell me what you need in other words?",
};

/** An alternative the classifier also considered. */
export interface IntentAlternative {
  name: string;
  confidence: number;
}

/** A classification as the matcher returns it (`name` is `UNKNOWN` when none fits). */
export interface IntentClassification {
  name: string;
  confidence: number;
  extracted_params: Record<string, unknown>;
  alternatives: IntentAlternative[];
}

/** What the turn does with a classification. */
export type IntentDecision =
  /** A defined intent, confidently and clearly: its tool or journey runs. */
  | { kind: 'recognized'; name: string; confidence: number; extracted_params: Record<string, unknown>; alternatives: IntentAlternative[] }
  /** Unsure, or two intents too close: the reply asks which one; nothing mapped to an intent runs. */
  | { kind: 'clarify'; confidence: number; candidates: IntentAlternative[] }
  /** None of the agent's intents. */
  | { kind: 'unknown'; confidence: number };

/** Alternatives offered in one clarification question, at most. */
export const MAX_CLARIFICATION_CHOICES = 3;

const round = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * What a classification leads to (ADR 0031): UNKNOWN (or no classification) → unknown; otherwise the
 * candidates (best first, only names the agent defines) → clarify when the best is under `clarify_below` or the
 * runner-up is within `margin` of it; else recognised. A candidate with no confidence at all is never offered.
 */
export function decideIntent(
  classification: IntentClassification | undefined,
  settings: IntentSettings,
  defined: ReadonlySet<string>,
): IntentDecision {
  if (!classification || classification.name === UNKNOWN_INTENT || !defined.has(classification.name)) {
    const best = classification?.alternatives.filter((a) => defined.has(a.name)).sort((a, b) => b.confidence - a.confidence)[0];
    // An UNKNOWN with a defined alternative worth asking about is a question, not a fallback.
    if (best && best.confidence >= settings.clarify_below / 2)
      return { kind: 'clarify', confidence: round(best.confidence), candidates: [best] };
    return { kind: 'unknown', confidence: round(classification?.confidence ?? 0) };
  }
  const seen = new Set<string>();
  const candidates = [{ name: classification.name, confidence: classification.confidence }, ...classification.alternatives]
    .filter((c) => defined.has(c.name) && c.confidence > 0 && !seen.has(c.name) && seen.add(c.name))
    .sort((a, b) => b.confidence - a.confidence || a.name.localeCompare(b.name))
    .map((c) => ({ name: c.name, confidence: round(c.confidence) }));
  const [best, second] = candidates;
  if (!best) return { kind: 'unknown', confidence: round(classification.confidence) };
  const close = second !== undefined && best.confidence - second.confidence <= settings.margin;
  if (best.confidence < settings.clarify_below || close) {
    const offered = close ? candidates.filter((c) => best.confidence - c.confidence <= settings.margin) : candidates.slice(0, 2);
    return { kind: 'clarify', confidence: best.confidence, candidates: offered.slice(0, MAX_CLARIFICATION_CHOICES) };
  }
  return {
    kind: 'recognized',
    name: best.name,
    confidence: best.confidence,
    extracted_params: best.name === classification.name ? classification.extracted_params : {},
    alternatives: candidates.slice(1),
  };
}

/** The intent a decision reports (`data.intent` of the agent's message, metrics, `intent.recognized`). */
export const reportedIntentName = (decision: IntentDecision): string =>
  decision.kind === 'recognized' ? decision.name : decision.kind === 'clarify' ? CLARIFICATION_NEEDED : UNKNOWN_INTENT;

/** An intent applies to an agent like a guideline does: untagged, tagged `agent:<id>`, or with a tag the agent carries. */
export const intentAppliesTo = (intent: Pick<IntentView, 'tags'>, agentId: string, agentTags: readonly string[]): boolean =>
  intent.tags.length === 0 || intent.tags.includes(`agent:${agentId}`) || intent.tags.some((tag) => agentTags.includes(tag));

/**
 * Whether two intents can both apply to one agent (so may not share a name): either is untagged, they share a
 * tag, or one names an agent that the other's tags reach. `agentTagsOf` gives an agent's own tags.
 */
export function intentsOverlap(
  a: Pick<IntentView, 'tags'>,
  b: Pick<IntentView, 'tags'>,
  agentTagsOf: (agentId: string) => readonly string[],
): boolean {
  if (a.tags.length === 0 || b.tags.length === 0) return true;
  if (a.tags.some((tag) => b.tags.includes(tag))) return true;
  const agentsOf = (tags: readonly string[]) => tags.filter((t) => t.startsWith('agent:')).map((t) => t.slice('agent:'.length));
  return (
    agentsOf(a.tags).some((id) => intentAppliesTo(b, id, agentTagsOf(id))) ||
    agentsOf(b.tags).some((id) => intentAppliesTo(a, id, agentTagsOf(id)))
  );
}

/** The customer words for an intent in a clarification question: its description, else its name spelled out. */
export const customerWords = (intent: Pick<IntentView, 'name' | 'description'>): string =>
  intent.description.trim() !== '' ? intent.description.trim().replace(/[.!?]+$/, '') : intent.name.toLowerCase().replace(/_+/g, ' ');
