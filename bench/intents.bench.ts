/**
 * `npm run bench:intents`: how well the turn's intent classification does on a labelled set (ADR 0031) —
 * bench/intents-labelled.ts, 106 customer messages over seven intents, ten of them ambiguous and twelve out of
 * scope. Each message goes through the matcher's engine as a turn does (`GuidelineMatcher.match` with the
 * intents, the classification riding in the matching call) and the turn's rules (`decideIntent`, the default
 * `clarify_below` 0.5 and `margin` 0.1): the outcome is an intent, a clarification question, or UNKNOWN.
 *
 * - offline: the deterministic offline provider (keyword, example and description overlap);
 * - scripted: a scripted model that answers each message as labelled (the intent at 0.9, an ambiguous message's
 *   choices at 0.55 and 0.5, UNKNOWN for out of scope) — what the engine and rules make of a model's answer
 *   (schema, parsing, alternatives, the clarification rules), not a model's accuracy, which needs a real model.
 *
 * Reports accuracy (an intent message must get its intent, an ambiguous one a clarification, an out-of-scope one
 * UNKNOWN), precision and recall per intent and for clarification and UNKNOWN, the clarification rate (of all
 * messages, and of the unambiguous ones: questions asked that were not needed), and the matching calls made.
 * Writes docs/benchmarks/intents.json. BENCH_INTENTS_LIMIT=<n> runs the first n messages of each label (smoke).
 */
import { writeFileSync } from 'node:fs';
import type { MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { decideIntent, DEFAULT_INTENT_SETTINGS, reportedIntentName } from '@tenet/intents-domain';
import {
  createEmbeddingProvider,
  MATCH_GUIDELINES,
  OfflineProvider,
  type LlmProvider,
  type LlmRequest,
  type MatchGuidelinesInput,
} from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { EmbeddingCache } from '../libs/matching/service/src/embedding-cache.js';
import { GuidelineMatcher } from '../libs/matching/service/src/guideline-matcher.js';
import { ProviderRegistry } from '../libs/matching/service/src/provider-registry.js';
import { AMBIGUOUS, benchIntents, labelledIntentMessages, OUT_OF_SCOPE, type LabelledIntentMessage } from './intents-labelled.js';

const LIMIT = Number(process.env['BENCH_INTENTS_LIMIT'] ?? Infinity);
const CLARIFY = 'CLARIFICATION_NEEDED';
const UNKNOWN = 'UNKNOWN';
const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** The first LIMIT messages of each label. */
const messages: LabelledIntentMessage[] = (() => {
  const seen = new Map<string, number>();
  return labelledIntentMessages.filter((m) => {
    const n = (seen.get(m.label) ?? 0) + 1;
    seen.set(m.label, n);
    return n <= LIMIT;
  });
})();

/** The outcome a message should get. */
const expected = (m: LabelledIntentMessage): string => (m.label === AMBIGUOUS ? CLARIFY : m.label === OUT_OF_SCOPE ? UNKNOWN : m.label);

/** A model that answers each message as labelled (see the header). */
function scriptedModel(): ScriptedProvider {
  const byMessage = new Map(labelledIntentMessages.map((m) => [m.message, m]));
  return new ScriptedProvider().answerAlways<MatchGuidelinesInput>(MATCH_GUIDELINES, (request) => {
    const input = request.task.input;
    const m = byMessage.get(input.message);
    const intent =
      !m || m.label === OUT_OF_SCOPE
        ? { name: UNKNOWN, confidence: 0.9, extracted_params_json: '{}', alternatives: [] }
        : m.label === AMBIGUOUS
          ? {
              name: m.could_mean?.[0] ?? UNKNOWN,
              confidence: 0.55,
              extracted_params_json: '{}',
              alternatives: (m.could_mean ?? []).slice(1).map((name) => ({ name, confidence: 0.5 })),
            }
          : {
              name: m.label,
              confidence: 0.9,
              extracted_params_json: '{}',
              alternatives: benchIntents
                .filter((i) => i.name !== m.label)
                .slice(0, 1)
                .map((i) => ({ name: i.name, confidence: 0.1 })),
            };
    return { matches: [], ...(input.intents?.length ? { intent } : {}) };
  });
}

/** Counts the matching calls a run makes. */
class Counting implements LlmProvider {
  readonly name: string;
  readonly model: string;
  calls = 0;
  promptTokens = 0;
  constructor(private readonly inner: LlmProvider) {
    this.name = inner.name;
    this.model = inner.model;
  }
  async generate<I, O>(request: LlmRequest<I>) {
    const response = await this.inner.generate<I, O>(request);
    if (request.task.kind === MATCH_GUIDELINES) {
      this.calls += 1;
      this.promptTokens += response.usage.inputTokens;
    }
    return response;
  }
}

async function run(provider: LlmProvider) {
  const counting = new Counting(provider);
  const matcher = new GuidelineMatcher(new ProviderRegistry(counting), new EmbeddingCache(createEmbeddingProvider({}), {}), {
    logger: { warn: () => undefined },
  });
  const defined = new Set(benchIntents.map((i) => i.name));
  const outcomes: { message: string; expected: string; got: string; confidence: number }[] = [];
  for (const [i, m] of messages.entries()) {
    const request: MatchGuidelinesRequestV1 = {
      session_id: `bench-intents-${i}`,
      agent: { id: 'bench-shop', name: 'Ada' },
      message: m.message,
      history: [],
      guidelines: [],
      intents: benchIntents,
    };
    const reply = await matcher.match(request);
    const decision = decideIntent(reply.result.intent, DEFAULT_INTENT_SETTINGS, defined);
    outcomes.push({ message: m.message, expected: expected(m), got: reportedIntentName(decision), confidence: decision.confidence });
  }
  const classes = [...benchIntents.map((i) => i.name), CLARIFY, UNKNOWN];
  const perClass = Object.fromEntries(
    classes.map((c) => {
      const predicted = outcomes.filter((o) => o.got === c).length;
      const actual = outcomes.filter((o) => o.expected === c).length;
      const correct = outcomes.filter((o) => o.got === c && o.expected === c).length;
      return [
        c,
        {
          precision: predicted === 0 ? null : round(correct / predicted),
          recall: actual === 0 ? null : round(correct / actual),
          support: actual,
        },
      ];
    }),
  );
  const unambiguous = outcomes.filter((o) => o.expected !== CLARIFY);
  return {
    messages: outcomes.length,
    accuracy: round(outcomes.filter((o) => o.got === o.expected).length / outcomes.length),
    accuracy_on_intent_messages: round(
      outcomes.filter((o) => defined.has(o.expected) && o.got === o.expected).length /
        Math.max(1, outcomes.filter((o) => defined.has(o.expected)).length),
    ),
    clarification_rate: round(outcomes.filter((o) => o.got === CLARIFY).length / outcomes.length),
    needless_clarification_rate: round(unambiguous.filter((o) => o.got === CLARIFY).length / Math.max(1, unambiguous.length)),
    per_class: perClass,
    matching_calls: counting.calls,
    matching_calls_per_message: round(counting.calls / Math.max(1, outcomes.length), 2),
    prompt_tokens_per_message: Math.round(counting.promptTokens / Math.max(1, outcomes.length)),
    errors: outcomes
      .filter((o) => o.got !== o.expected)
      .map((o) => ({ message: o.message, expected: o.expected, got: o.got, confidence: o.confidence })),
  };
}

const offline = await run(new OfflineProvider());
const scripted = await run(scriptedModel());
const summary = (r: typeof offline) => ({
  messages: r.messages,
  accuracy: r.accuracy,
  accuracy_on_intent_messages: r.accuracy_on_intent_messages,
  clarification_rate: r.clarification_rate,
  needless_clarification_rate: r.needless_clarification_rate,
  matching_calls_per_message: r.matching_calls_per_message,
  prompt_tokens_per_message: r.prompt_tokens_per_message,
});
console.log(JSON.stringify({ provider: 'offline', ...summary(offline) }));
console.log(JSON.stringify({ provider: 'scripted', ...summary(scripted) }));
console.log('per class (offline):');
for (const [name, row] of Object.entries(offline.per_class))
  console.log(
    `  ${name.padEnd(22)} precision ${String(row.precision).padEnd(6)} recall ${String(row.recall).padEnd(6)} support ${row.support}`,
  );
console.log(`offline errors: ${offline.errors.length}`);
for (const e of offline.errors) console.log(`  ${JSON.stringify(e.message)}: expected ${e.expected}, got ${e.got} (${e.confidence})`);
if (!Number.isFinite(LIMIT)) {
  writeFileSync(
    new URL('../docs/benchmarks/intents.json', import.meta.url),
    `${JSON.stringify({ intents: benchIntents.length, labelled_messages: messages.length, settings: { clarify_below: DEFAULT_INTENT_SETTINGS.clarify_below, margin: DEFAULT_INTENT_SETTINGS.margin }, offline, scripted }, null, 2)}\n`,
  );
}
