/**
 * Extraction benchmark (docs/data-model.md#context-extraction): precision and recall per variable type on the labelled set in
 * bench/extraction-labelled.ts (64 customer messages, 5 variable types), through the matcher's ContextExtractor —
 * the code a turn runs — with
 *   - offline: the deterministic offline provider (patterns);
 *   - scripted: a ScriptedProvider answering each message with its labels (an oracle model): what the pipeline
 *     around the model keeps of a perfect answer, and the calls it makes;
 *   - configured: the provider OPENAI_API_KEY / ANTHROPIC_API_KEY selects, only when one is set.
 * It also counts LLM calls per message with 5 and with 50 variables (one call whatever the number).
 *
 *   npm run bench:extraction            (BENCH_JSON=<file> writes the numbers)
 */
import { writeFileSync } from 'node:fs';
import type { ExtractContextRequestV1 } from '@tenet/contracts';
import {
  createLlmProvider,
  EXTRACT_CONTEXT,
  OfflineProvider,
  type LlmProvider,
  type LlmRequest,
  type ExtractContextInput,
} from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { ContextExtractor, ProviderRegistry } from '@tenet/matching-service';
import { LABELLED, type VariableType } from './extraction-labelled.js';

const TYPES: VariableType[] = ['name', 'order_number', 'email', 'date', 'phone'];
const VARIABLES: Record<VariableType, ExtractContextRequestV1['variables'][number]> = {
  name: { name: 'customer_name', extraction_prompt: "The customer's name as they give it" },
  order_number: { name: 'order_number', extraction_prompt: 'The order number the customer refers to' },
  email: { name: 'email', extraction_prompt: "The customer's email address" },
  date: {
    name: 'mentioned_date',
    extraction_prompt: 'A calendar date the customer mentions (delivery, order, birthday)',
    data_type: 'Date',
  },
  phone: { name: 'phone', extraction_prompt: "The customer's phone number" },
};
const typeOf = new Map(TYPES.map((t) => [VARIABLES[t].name, t]));
/** 45 more variables the messages never fill, to show the call count does not grow. */
const PADDING = Array.from({ length: 45 }, (_, i) => ({
  name: `preference_${i}`,
  extraction_prompt: `The customer's preference number ${i} about packaging colour`,
}));

const normal: Record<VariableType, (v: string) => string> = {
  name: (v) => v.trim().toLowerCase(),
  order_number: (v) => v.trim().replace(/^#/, '').toUpperCase(),
  email: (v) => v.trim().toLowerCase(),
  date: (v) => v.trim(),
  phone: (v) => `${v.trim().startsWith('+') ? '+' : ''}${v.replace(/\D/g, '')}`,
};

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

async function evaluate(
  provider: LlmProvider,
  padded: boolean,
): Promise<{ perType: Record<VariableType, Counts>; calls: number; inputTokens: number; messages: number }> {
  let calls = 0;
  let inputTokens = 0;
  const counting: LlmProvider = {
    name: provider.name,
    model: provider.model,
    generate: async (request) => {
      calls++;
      const response = await provider.generate(request);
      inputTokens += response.usage.inputTokens;
      return response as never;
    },
  };
  const extractor = new ContextExtractor(new ProviderRegistry(counting));
  const perType = Object.fromEntries(TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Record<VariableType, Counts>;
  for (const item of LABELLED) {
    const reply = await extractor.extract({
      session_id: 'bench',
      agent: { id: 'bench', name: 'Bench' },
      message: item.text,
      history: [],
      variables: [...TYPES.map((t) => VARIABLES[t]), ...(padded ? PADDING : [])],
      facts: true,
    });
    const got = new Map(
      reply.values.flatMap((v) => (typeOf.has(v.name) && typeof v.value === 'string' ? [[typeOf.get(v.name)!, v.value] as const] : [])),
    );
    for (const type of TYPES) {
      const expected = item.expect[type];
      const value = got.get(type);
      if (value !== undefined && expected !== undefined && normal[type](value) === normal[type](expected)) perType[type].tp++;
      else {
        if (value !== undefined) perType[type].fp++;
        if (expected !== undefined) perType[type].fn++;
      }
    }
  }
  return { perType, calls, inputTokens, messages: LABELLED.length };
}

function oracle(): ScriptedProvider {
  const byText = new Map(LABELLED.map((l) => [l.text, l.expect]));
  return new ScriptedProvider({
    model: 'labels',
    usage: (request) => ({ inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4), outputTokens: 20 }),
  }).answerAlways<ExtractContextInput>(EXTRACT_CONTEXT, (request: LlmRequest<ExtractContextInput>) => {
    const expect = byText.get(request.task.input.message) ?? {};
    return {
      values: TYPES.flatMap((t) =>
        expect[t] !== undefined && request.task.input.variables.some((v) => v.name === VARIABLES[t].name)
          ? [{ name: VARIABLES[t].name, value: expect[t], confidence: 0.9 }]
          : [],
      ),
      facts: [],
    };
  });
}

const pct = (n: number): string => (Number.isNaN(n) ? 'n/a' : `${(n * 100).toFixed(1)} %`);
const providers: [string, () => LlmProvider][] = [
  ['offline', () => new OfflineProvider()],
  ['scripted (labels)', oracle],
];
if (process.env['OPENAI_API_KEY'] || process.env['ANTHROPIC_API_KEY']) providers.push(['configured', () => createLlmProvider(process.env)]);

const results: Record<string, unknown> = {};
const lines: string[] = [];
lines.push(
  `Labelled set: ${LABELLED.length} messages, ${LABELLED.reduce((n, l) => n + Object.keys(l.expect).length, 0)} labelled values over ${TYPES.length} types.`,
  '',
);
lines.push('| provider | type | precision | recall | TP | FP | FN |', '|---|---|---|---|---|---|---|');
const callLines: string[] = ['| provider | variables | LLM calls / message | input tokens / call |', '|---|---|---|---|'];
for (const [label, make] of providers) {
  const run = await evaluate(make(), false);
  const total = TYPES.reduce(
    (acc, t) => ({ tp: acc.tp + run.perType[t].tp, fp: acc.fp + run.perType[t].fp, fn: acc.fn + run.perType[t].fn }),
    { tp: 0, fp: 0, fn: 0 },
  );
  for (const [type, c] of [...TYPES.map((t) => [t, run.perType[t]] as const), ['all', total] as const]) {
    lines.push(`| ${label} | ${type} | ${pct(c.tp / (c.tp + c.fp))} | ${pct(c.tp / (c.tp + c.fn))} | ${c.tp} | ${c.fp} | ${c.fn} |`);
  }
  const padded = await evaluate(make(), true);
  callLines.push(`| ${label} | 5 | ${(run.calls / run.messages).toFixed(2)} | ${Math.round(run.inputTokens / run.calls)} |`);
  callLines.push(`| ${label} | 50 | ${(padded.calls / padded.messages).toFixed(2)} | ${Math.round(padded.inputTokens / padded.calls)} |`);
  results[label] = { perType: run.perType, total, calls: { five: run.calls / run.messages, fifty: padded.calls / padded.messages } };
}
console.log([...lines, '', ...callLines].join('\n'));
if (process.env['BENCH_JSON']) writeFileSync(process.env['BENCH_JSON'], JSON.stringify(results, null, 2));
