import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newId } from '../ids.js';

/**
 * API keys and session tokens: `tnt_<id>_<secret>` and `tst_<id>_<secret>`. The id (public) finds the record; the
 * secret is 32 random bytes (256 bits, base64url). Only SHA-256 of the secret is stored. A slow password hash
 * (scrypt, argon2) protects low-entropy secrets against guessing; a 256-bit random secret cannot be guessed, so
 * a fast hash is as safe and costs microseconds per request instead of tens of milliseconds (ADR 0018).
 */
export interface IssuedSecret {
  id: string;
  /** The whole token, shown once. */
  token: string;
  /** SHA-256 of the secret part, hex: what is stored. */
  hash: string;
}

export const KEY_PREFIX = 'tnt';
export const SESSION_TOKEN_PREFIX = 'tst';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function issueSecret(prefix: typeof KEY_PREFIX | typeof SESSION_TOKEN_PREFIX): IssuedSecret {
  const id = newId(16);
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `${prefix}_${id}_${secret}`, hash: sha256(secret) };
}

/** Splits a presented token into its kind, id and secret; undefined when it is not one of ours. */
export function parseToken(token: string): { prefix: string; id: string; secret: string } | undefined {
  const match = /^(tnt|tst)_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/.exec(token);
  return match ? { prefix: match[1] ?? '', id: match[2] ?? '', secret: match[3] ?? '' } : undefined;
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(sha256(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Constant-time comparison of two whole strings (the bootstrap key from the environment). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a), 'hex');
  const y = Buffer.from(sha256(b), 'hex');
  return timingSafeEqual(x, y);
}
