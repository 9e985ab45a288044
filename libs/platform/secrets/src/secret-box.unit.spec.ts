import { randomBytes } from 'node:crypto';
import {
  generateSecretsKey,
  isSealedSecret,
  SecretBox,
  secretBoxFromEnv,
  secretHint,
  SecretOpenError,
  SecretsKeyError,
} from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed for the same owner, and the sealed text does not contain the secret', () => {
    const sealed = box.seal('petstore-api-key-0123456789', 'tool-service:petstore');
    expect(isSealedSecret(sealed)).toBe(true);
    expect(sealed).not.toContain('petstore-api-key');
    expect(box.open(sealed, 'tool-service:petstore')).toBe('petstore-api-key-0123456789');
  });

  it('seals the same secret differently each time (fresh IV)', () => {
    expect(box.seal('same', 'o')).not.toBe(box.seal('same', 'o'));
  });

  it('refuses a value moved to another owner, a tampered value and a value sealed under an unknown key', () => {
    const sealed = box.seal('secret-value', 'tool-service:a');
    expect(() => box.open(sealed, 'tool-service:b')).toThrow(SecretOpenError);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('something else').toString('base64url');
    expect(() => box.open(parts.join('.'), 'tool-service:a')).toThrow(SecretOpenError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'tool-service:a')).toThrow(/neither TENET_SECRETS_KEY/);
    expect(() => box.open('plain text', 'tool-service:a')).toThrow(/not a sealed secret/);
  });

  it('opens values sealed under the previous key during a rotation, and says they are stale', () => {
    const oldKey = randomBytes(32);
    const sealedBefore = new SecretBox(oldKey).seal('rotated', 'channel:slack');
    const rotated = new SecretBox(randomBytes(32), [oldKey]);
    expect(rotated.open(sealedBefore, 'channel:slack')).toBe('rotated');
    expect(rotated.isStale(sealedBefore)).toBe(true);
    expect(rotated.isStale(rotated.seal('rotated', 'channel:slack'))).toBe(false);
  });
});

describe('secretBoxFromEnv', () => {
  it('is undefined without a key and reads hex or base64 keys', () => {
    expect(secretBoxFromEnv({})).toBeUndefined();
    const hex = generateSecretsKey();
    expect(secretBoxFromEnv({ TENET_SECRETS_KEY: hex })).toBeInstanceOf(SecretBox);
    expect(secretBoxFromEnv({ TENET_SECRETS_KEY: Buffer.from(hex, 'hex').toString('base64') })).toBeInstanceOf(SecretBox);
  });

  it('names the variable and the rule for a bad key', () => {
    expect(() => secretBoxFromEnv({ TENET_SECRETS_KEY: 'short' })).toThrow(SecretsKeyError);
    expect(() => secretBoxFromEnv({ TENET_SECRETS_KEY: 'short' })).toThrow(/TENET_SECRETS_KEY must be 32 random bytes/);
    expect(() => secretBoxFromEnv({ TENET_SECRETS_KEY: generateSecretsKey(), TENET_SECRETS_KEY_PREVIOUS: 'x' })).toThrow(
      /TENET_SECRETS_KEY_PREVIOUS/,
    );
    expect(() => secretBoxFromEnv({ TENET_SECRETS_KEY_PREVIOUS: generateSecretsKey() })).toThrow(/without TENET_SECRETS_KEY/);
  });
});

describe('secretHint', () => {
  it('shows the last four characters of a long secret and nothing of a short one', () => {
    expect(secretHint('abcdefghijklmnop1234')).toBe('…1234');
    expect(secretHint('short-secret')).toBe('…');
  });
});
