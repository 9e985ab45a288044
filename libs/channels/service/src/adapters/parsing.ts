/** A signed request whose body is not what the platform's format says: 400 naming the field. */
export class InboundParseError extends Error {
  constructor(
    readonly loc: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

const name = (loc: (string | number)[]): string => String(loc.at(-1));

export function requiredString(value: unknown, loc: (string | number)[], max = 500): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    throw new InboundParseError(loc, `${name(loc)} must be a string of 1-${max} characters`);
  return value;
}

export function optionalString(value: unknown, loc: (string | number)[], max = 500): string | undefined {
  return value === undefined || value === null ? undefined : requiredString(value, loc, max);
}

/** Why a URL setting is not acceptable, or undefined. */
export function urlProblem(value: string | undefined, required = true): string | undefined {
  if (value === undefined || value === '') return required ? 'is required' : undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
    if (url.username || url.password) return 'must not carry credentials';
    return undefined;
  } catch {
    return 'must be an absolute URL';
  }
}
