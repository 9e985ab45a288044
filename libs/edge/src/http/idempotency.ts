import { createHash } from 'node:crypto';
import { UnprocessableEntity } from './validation.js';

/** RFC-draft `Idempotency-Key`: an opaque client string; Tenet accepts 1-255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1-255 visible ASCII characters';

/** JSON with object keys sorted, so two bodies that say the same thing have one fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The idempotency key of a request, or undefined without the header. A malformed key is `'invalid'`: the
 * caller refuses the request rather than silently not deduplicating it.
 */
export function idempotencyKeyOf(header: string | undefined, body: unknown): IdempotencyKey | 'invalid' | undefined {
  if (header === undefined) return undefined;
  if (!KEY_PATTERN.test(header)) return 'invalid';
  return { key: header, fingerprint: createHash('sha256').update(canonical(body)).digest('hex') };
}

/** A client's `Idempotency-Key` and the fingerprint of the request body it was first used with. */
export interface IdempotencyKey {
  key: string;
  fingerprint: string;
}

/** The key was used before with a different request body: the request is refused, nothing is written. */
export class IdempotencyKeyReusedError extends Error {
  readonly code = 'SESSION.IDEMPOTENCY_KEY_REUSED';
  constructor(readonly key: string) {
    super(`Idempotency-Key "${key}" was already used with a different request body`);
  }
}

/** The 422s of a keyed request: a malformed key, or a key already used with another body. */
export const malformedKey = (): UnprocessableEntity =>
  new UnprocessableEntity([{ loc: ['header', 'Idempotency-Key'], msg: IDEMPOTENCY_KEY_RULE, type: 'value_error' }]);
export const reusedKey = (error: IdempotencyKeyReusedError): UnprocessableEntity =>
  new UnprocessableEntity([{ loc: ['header', 'Idempotency-Key'], msg: error.message, type: 'value_error.idempotency_key_reused' }]);
