import { Type, type Static } from '@sinclair/typebox';
import { deepEqual, isPlainObject } from './resources.js';
import type { TurnObservation } from './turn.js';

const strict = { additionalProperties: false } as const;
const Strings = Type.Array(Type.String());

/** What one customer turn must produce; every expectation is optional and `no_error` is on by default. */
export const TurnExpectation = Type.Object(
  {
    matched: Type.Optional(Type.Array(Type.String(), { description: 'Guideline ids that must be matched.' })),
    not_matched: Type.Optional(Type.Array(Type.String(), { description: 'Guideline ids that must not be matched.' })),
    tool_called: Type.Optional(
      Type.Array(
        Type.Object(
          { tool: Type.String({ description: '<service>:<tool>' }), arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
          strict,
        ),
      ),
    ),
    journey: Type.Optional(Type.Object({ id: Type.String(), step: Type.Optional(Type.String()) }, strict)),
    reply_contains: Type.Optional(Strings),
    reply_matches: Type.Optional(Type.String({ description: 'A regular expression (JavaScript syntax, case-insensitive).' })),
    reply_not_contains: Type.Optional(Strings),
    cited: Type.Optional(Type.Array(Type.String(), { description: 'Knowledge source ids the reply must cite.' })),
    variable: Type.Optional(Type.Object({ id: Type.String({ description: 'Context variable id.' }), equals: Type.Unknown() }, strict)),
    no_error: Type.Optional(Type.Boolean({ default: true })),
  },
  strict,
);

export const ScenarioSchema = Type.Object(
  {
    name: Type.String(),
    agent: Type.Optional(Type.String()),
    customer: Type.Optional(Type.String({ description: 'Customer id (default: the guest customer).' })),
    turns: Type.Array(
      Type.Object({ customer: Type.String({ description: "The customer's message." }), expect: Type.Optional(TurnExpectation) }, strict),
      { minItems: 1 },
    ),
  },
  strict,
);

/** A scenario file: a default agent and its scenarios. */
export const ScenarioFileSchema = Type.Object(
  { agent: Type.Optional(Type.String()), scenarios: Type.Array(ScenarioSchema, { minItems: 1 }) },
  strict,
);

export type TurnExpectationT = Static<typeof TurnExpectation>;
export type Scenario = Static<typeof ScenarioSchema>;
export type ScenarioFile = Static<typeof ScenarioFileSchema>;

/** The outcome of one expectation of one turn. */
export interface ExpectationResult {
  /** Stable label, e.g. `matched demo-refund`, for counting the same expectation across repeats. */
  label: string;
  passed: boolean;
  /** Why it failed, with what the turn did instead. */
  detail?: string;
}

/** Whether every key of `expected` has an equal value in `actual` (extra arguments are allowed). */
const argumentsMatch = (expected: Record<string, unknown>, actual: Record<string, unknown>): boolean =>
  Object.entries(expected).every(([k, v]) => deepEqual(v, isPlainObject(actual) ? actual[k] : undefined));

/**
 * Checks a turn against its expectations. `variableValue` is the variable's stored value after the turn (read by
 * the runner), undefined when it has none.
 */
export function checkTurn(expect: TurnExpectationT | undefined, turn: TurnObservation, variableValue?: unknown): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  const check = (label: string, passed: boolean, detail: string): void => {
    results.push({ label, passed, ...(passed ? {} : { detail }) });
  };
  const matched = turn.matched.map((m) => m.id);
  const e = expect ?? {};
  if (e.no_error !== false) check('no error', turn.error === undefined, `the turn failed: ${turn.error ?? ''}`);
  for (const id of e.matched ?? []) check(`matched ${id}`, matched.includes(id), `matched were [${matched.join(', ')}]`);
  for (const id of e.not_matched ?? []) check(`not matched ${id}`, !matched.includes(id), `${id} was matched`);
  for (const call of e.tool_called ?? []) {
    const label = `tool ${call.tool}${call.arguments ? ` with ${JSON.stringify(call.arguments)}` : ''}`;
    const found = turn.tools.some((t) => t.tool === call.tool && argumentsMatch(call.arguments ?? {}, t.arguments));
    check(label, found, `tool calls were [${turn.tools.map((t) => `${t.tool} ${JSON.stringify(t.arguments)}`).join(', ')}]`);
  }
  if (e.journey) {
    const label = `journey ${e.journey.id}${e.journey.step ? ` at ${e.journey.step}` : ''}`;
    const at = turn.journey;
    check(
      label,
      at?.id === e.journey.id && (e.journey.step === undefined || at.step === e.journey.step),
      at ? `the journey was ${at.id} at ${at.step}` : 'no journey was active',
    );
  }
  const reply = turn.reply.toLowerCase();
  for (const text of e.reply_contains ?? [])
    check(`reply contains "${text}"`, reply.includes(text.toLowerCase()), `the reply was "${turn.reply}"`);
  for (const text of e.reply_not_contains ?? [])
    check(`reply does not contain "${text}"`, !reply.includes(text.toLowerCase()), `the reply was "${turn.reply}"`);
  if (e.reply_matches !== undefined)
    check(`reply matches /${e.reply_matches}/`, new RegExp(e.reply_matches, 'i').test(turn.reply), `the reply was "${turn.reply}"`);
  for (const source of e.cited ?? [])
    check(
      `cites ${source}`,
      turn.citations.some((c) => c.source === source),
      `cited were [${[...new Set(turn.citations.map((c) => c.source))].join(', ')}]`,
    );
  if (e.variable)
    check(
      `variable ${e.variable.id} = ${JSON.stringify(e.variable.equals)}`,
      deepEqual(variableValue, e.variable.equals),
      `its value was ${variableValue === undefined ? 'not set' : JSON.stringify(variableValue)}`,
    );
  return results;
}
