/**
 * Removes credentials from text that may have come from an LLM provider or a proxy in front of it (an error
 * body can echo the request's headers). Every log line and error message that can carry provider text goes
 * through this; customers never see provider text at all (they get a code, see the gateway's turn errors).
 */
const REDACTED = '[REDACTED]';

const PATTERNS: readonly RegExp[] = [
  // Authorization / Proxy-Authorization headers, in any quoting (`Authorization: Bearer x`, `"authorization":"Basic x"`).
  /((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;}]+/gi,
  // API-key headers and fields: x-api-key, api_key, apiKey, api-key, access_token, secret, password.
  /((?:x-)?(?:api[-_]?key|access[-_]?token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi,
  // A bearer token anywhere.
  /(bearer\s+)[\w.~+/=-]{8,}/gi,
  // OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`) and similar secret-key shapes.
  /()\bsk-[\w-]{8,}/g,
];

/** Values of environment variables that are secrets by name (…_KEY, …_TOKEN, …_SECRET, …_PASSWORD). */
function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => /(?:_KEY|_TOKEN|_SECRET|_PASSWORD)$/i.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value as string);
}

export function redactSecrets(text: string, env: Record<string, string | undefined> = process.env): string {
  let redacted = text;
  for (const secret of secretsFromEnv(env)) redacted = redacted.split(secret).join(REDACTED);
  for (const pattern of PATTERNS) redacted = redacted.replace(pattern, `$1${REDACTED}`);
  return redacted;
}
