/**
 * Tenet's one secret redactor, for anything that leaves the process as a log line or an error message (provider
 * text included: an error body can echo the request's headers). Values under secret-looking keys are
 * replaced whole; in strings, provider keys (`sk-…`, `sk-ant-…`), bearer tokens and the password of
 * credentialed URLs (`redis://user:pass@host`) are masked. Pure: no I/O, safe to unit-test exhaustively.
 */
export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /^(?:.*[_-])?(?:api[_-]?key|apikey|authorization|cookie|password|passwd|secret|token|access[_-]?token|refresh[_-]?token|private[_-]?key|credentials?)$/i;
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/g, 'sk-[REDACTED]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, '$1[REDACTED]@'],
  [/\b((?:[A-Z0-9]+_)*(?:API_KEY|SECRET|PASSWORD|TOKEN))=("[^"]*"|\S+)/g, `$1=${REDACTED}`],
  // Authorization / Proxy-Authorization headers, in any quoting (`Authorization: Bearer x`, `"authorization":"Basic x"`),
  // unless already masked by the rules above.
  [
    /((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?!(?:(?:bearer|basic|token)\s+)?\[REDACTED\])(?:(?:bearer|basic|token)\s+)?[^\s"',;}]+/gi,
    `$1${REDACTED}`,
  ],
  // API-key headers and fields: x-api-key, api_key, apiKey, api-key, access_token, secret, password.
  [/((?:x-)?(?:api[-_]?key|access[-_]?token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi, `$1${REDACTED}`],
  // A bearer token anywhere, and OpenAI / Anthropic style secret keys in any other shape.
  [/(bearer\s+)[\w.~+/=-]{8,}/gi, `$1${REDACTED}`],
  [/\bsk-[\w-]{8,}/g, REDACTED],
];

export function redactString(text: string): string {
  return SECRET_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

/** Values of environment variables that are secrets by name (…_KEY, …_TOKEN, …_SECRET, …_PASSWORD). */
function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => /(?:_KEY|_TOKEN|_SECRET|_PASSWORD)$/i.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value as string);
}

/** `redactString`, after masking the values of the secret environment variables wherever they appear. */
export function redactSecrets(text: string, env: Record<string, string | undefined> = process.env): string {
  let redacted = text;
  for (const secret of secretsFromEnv(env)) redacted = redacted.split(secret).join(REDACTED);
  return redactString(redacted);
}

/** A deep copy of `value` with secrets redacted; cycles become "[Circular]", errors keep name, message and stack. */
export function redact(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (value instanceof Error) {
    const error = new Error(redactString(value.message));
    error.name = value.name;
    error.stack = value.stack === undefined ? undefined : redactString(value.stack);
    return error;
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, seen));
  if (value instanceof Map || value instanceof Set || value instanceof Date || ArrayBuffer.isView(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_KEY.test(key) ? REDACTED : redact(item, seen)]));
}

/**
 * A deep copy of `value` with every occurrence of the given secret values (a tool service's credentials) masked,
 * in strings and object keys' values alike, on top of `redact`'s own rules. Secrets shorter than 4 characters
 * are not masked (they would mask ordinary text).
 */
export function redactKnownSecrets(value: unknown, secrets: readonly string[]): unknown {
  const known = [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
  if (known.length === 0) return value;
  const mask = (text: string): string => known.reduce((out, secret) => out.split(secret).join(REDACTED), text);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return mask(item);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === 'object' && item !== null)
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    return item;
  };
  return walk(value);
}
