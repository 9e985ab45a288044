/**
 * `required` context variables (docs/data-model.md#context-variables): while one has no value, the agent asks for it. Guidelines that list
 * it in `required_context` are not candidates until it has one (`candidatesFor`); this adds the asking, as an
 * instruction the reply is composed with like a matched guideline's action.
 */
export interface RequirableVariable {
  name: string;
  required: boolean;
}

/** The id of the instruction asking for a variable, as the compose request and `cited_guideline_ids` carry it. */
export const REQUIRED_CONTEXT_ID_PREFIX = 'required_context:';

const missingValue = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** The required variables without a value in `values` (by name), in the order given. */
export function missingRequiredContext<V extends RequirableVariable>(
  variables: readonly V[],
  values: Readonly<Record<string, unknown>>,
): V[] {
  return variables.filter((v) => v.required && missingValue(values[v.name]));
}

/** "order_number" → "order number": the variable as the instruction names it. */
const spoken = (name: string): string =>
  name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();

/** One instruction per missing variable: "Ask the customer for their order number". */
export function askForMissingContext(missing: readonly RequirableVariable[]): { guideline_id: string; action: string }[] {
  return missing.map((v) => ({
    guideline_id: `${REQUIRED_CONTEXT_ID_PREFIX}${v.name}`,
    action: `Ask the customer for their ${spoken(v.name)}`,
  }));
}
