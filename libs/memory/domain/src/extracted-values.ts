/**
 * What an extraction call returned, made usable: text read as a variable's data type, facts normalised, and
 * the facts a reply may use (this message's over recalled ones). Pure: the turn stores and publishes the results.
 */

export type VariableDataType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Array' | 'Object';

/** An extracted value (the model writes text) as the variable's data_type; `undefined` when it is not one. */
export function typedValue(variable: { data_type?: VariableDataType | undefined }, text: string): unknown {
  const value = text.trim();
  switch (variable.data_type) {
    case undefined:
    case 'String':
    case 'Date':
      return value;
    case 'Number': {
      const number = Number(value.replace(/[,\s]/g, ''));
      return value !== '' && Number.isFinite(number) ? number : undefined;
    }
    case 'Boolean':
      return /^(true|yes)$/i.test(value) ? true : /^(false|no)$/i.test(value) ? false : undefined;
    case 'Array':
    case 'Object':
      try {
        const parsed: unknown = JSON.parse(value);
        return (variable.data_type === 'Array') === Array.isArray(parsed) && typeof parsed === 'object' && parsed !== null
          ? parsed
          : undefined;
      } catch {
        return undefined;
      }
  }
}

/** A model's confidence, within 0..1. */
export const clampConfidence = (confidence: number): number => Math.min(1, Math.max(0, confidence));

export interface ExtractedFact {
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
}

const FACT_FIELD_MAX = 500;

/** Facts as stored: trimmed and bounded, the predicate in snake_case, confidence within 0..1; empty ones dropped. */
export function normalizedFacts(facts: readonly ExtractedFact[]): ExtractedFact[] {
  return facts
    .map((f) => ({
      subject: f.subject.trim().slice(0, FACT_FIELD_MAX),
      predicate: f.predicate.trim().toLowerCase().replace(/\s+/g, '_').slice(0, FACT_FIELD_MAX),
      object: f.object.trim().slice(0, FACT_FIELD_MAX),
      confidence: clampConfidence(f.confidence),
    }))
    .filter((f) => f.subject !== '' && f.predicate !== '' && f.object !== '');
}

const factKey = (f: Pick<ExtractedFact, 'subject' | 'predicate'>): string => `${f.subject.toLowerCase()}|${f.predicate.toLowerCase()}`;

/** The facts a reply may use: this message's are the newest and win over recalled ones with the same subject and predicate. */
export function mergedFacts(fromMessage: readonly ExtractedFact[], recalled: readonly ExtractedFact[]): ExtractedFact[] {
  const facts = new Map<string, ExtractedFact>();
  for (const f of fromMessage)
    facts.set(factKey(f), { subject: f.subject, predicate: f.predicate, object: f.object, confidence: f.confidence });
  for (const f of recalled)
    if (!facts.has(factKey(f)))
      facts.set(factKey(f), { subject: f.subject, predicate: f.predicate, object: f.object, confidence: f.confidence });
  return [...facts.values()];
}

/** Values usable as template fields (`{{name}}`): strings, numbers and booleans as text. */
export const scalarFieldValues = (values: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values).flatMap(([k, v]) =>
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [[k, String(v)]] : [],
    ),
  );
