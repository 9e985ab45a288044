import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Parlant-style ids: 10 random characters from [A-Za-z0-9], safe as NATS subject tokens and stream ids. */
export function newId(length = 10): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    const byte = bytes[i] ?? 255;
    if (byte < 248) id += ALPHABET[byte % 62]; // 248 = 4 × 62: rejection keeps the distribution uniform
  }
  return id.length === length ? id : newId(length);
}

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
