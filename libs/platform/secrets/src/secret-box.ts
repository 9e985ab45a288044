import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError, readSettings, type Settings } from '@tenet/config';

/**
 * Encryption at rest for credentials Tenet must hand to someone else later (tool-service API keys, channel
 * tokens): AES-256-GCM from Node's crypto, a fresh 96-bit IV per value, the owner of the value bound in as
 * additional authenticated data so a sealed value copied onto another record does not open there.
 *
 * A sealed value reads `tsb1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts); the key id is the first
 * 8 bytes of the key's SHA-256, so a value sealed under the previous key still opens during a rotation
 * (`TENET_SECRETS_KEY_PREVIOUS`), and one sealed under an unknown key fails with a clear error instead of
 * garbage.
 */
export class SecretBox {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly current: Buffer;
  private readonly currentId: string;

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new SecretsKeyError(`a secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
    }
    this.current = current;
    this.currentId = keyId(current);
    this.keys = new Map([current, ...previous].map((key) => [keyId(key), key]));
  }

  /** Seals `plaintext` for the record named by `owner` (e.g. `tool-service:petstore`). */
  seal(plaintext: string, owner: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      PREFIX,
      this.currentId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  /** Opens a value sealed by `seal` for the same `owner`; throws SecretOpenError when it cannot. */
  open(sealed: string, owner: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretOpenError('not a sealed secret');
    const [, id, iv, tag, ciphertext] = parts as [string, string, string, string, string];
    const key = this.keys.get(id);
    if (key === undefined)
      throw new SecretOpenError(`sealed under key ${id}, which is neither TENET_SECRETS_KEY nor TENET_SECRETS_KEY_PREVIOUS`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(owner, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretOpenError(`does not open for ${owner} (tampered, or sealed for another record)`);
    }
  }

  /** Whether `sealed` was sealed under a key other than the current one (re-seal it on the next write). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentId;
  }
}

/** What a read may show of a secret: its last four characters, and only when it is long enough to keep the rest unguessable. */
export function secretHint(secret: string): string {
  return secret.length >= 16 ? `…${secret.slice(-4)}` : '…';
}

export function isSealedSecret(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${PREFIX}.`);
}

/**
 * The box from the environment: `TENET_SECRETS_KEY` (and optionally `TENET_SECRETS_KEY_PREVIOUS`), each 32
 * bytes written as 64 hex characters or base64. Undefined when no key is set: callers that hold a secret
 * refuse to store or start with `SecretsKeyError` then, never fall back to plaintext.
 */
export function secretBoxFromEnv(env: NodeJS.ProcessEnv = process.env): SecretBox | undefined {
  let keys: Pick<Settings, 'TENET_SECRETS_KEY' | 'TENET_SECRETS_KEY_PREVIOUS'>;
  try {
    keys = readSettings(env, ['TENET_SECRETS_KEY', 'TENET_SECRETS_KEY_PREVIOUS']);
  } catch (error) {
    throw error instanceof ConfigError ? new SecretsKeyError(error.problems.join('; ')) : error;
  }
  const current = keys.TENET_SECRETS_KEY;
  const previous = keys.TENET_SECRETS_KEY_PREVIOUS;
  if (!current) return undefined;
  return new SecretBox(parseKey('TENET_SECRETS_KEY', current), previous ? [parseKey('TENET_SECRETS_KEY_PREVIOUS', previous)] : []);
}

/** A new random key in the form `secretBoxFromEnv` reads (for docs and set-up scripts). */
export function generateSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString('hex');
}

export class SecretsKeyError extends Error {
  readonly code = 'SECRETS.KEY';
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

export class SecretOpenError extends Error {
  readonly code = 'SECRETS.OPEN';
  constructor(message: string) {
    super(`secret ${message}`);
    this.name = 'SecretOpenError';
  }
}

const PREFIX = 'tsb1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function parseKey(variable: string, text: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? Buffer.from(text, 'base64')
      : undefined;
  if (bytes?.length !== KEY_BYTES) {
    throw new SecretsKeyError(`${variable} must be 32 random bytes as 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`);
  }
  return bytes;
}
