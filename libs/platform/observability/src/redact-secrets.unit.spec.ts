import { redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it.each([
    ['upstream said: {"headers":{"authorization":"Bearer sk-live-abcdefghijklmnop"}}', 'sk-live-abcdefghijklmnop'],
    ['Authorization: Bearer abc.def.ghi-123456', 'abc.def.ghi-123456'],
    ['Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA=='],
    ['x-api-key: sk-ant-api03-0123456789abcdef', 'sk-ant-api03-0123456789abcdef'],
    ['{"api_key": "my-very-secret-value"}', 'my-very-secret-value'],
    ['invalid key sk-proj-ZZZZZZZZZZZZZZZZZZZZ given', 'sk-proj-ZZZZZZZZZZZZZZZZZZZZ'],
    ['token=bearer 0123456789abcdef0123', '0123456789abcdef0123'],
  ])('removes the secret from %s', (text, secret) => {
    const redacted = redactSecrets(text, {});
    expect(redacted).not.toContain(secret);
    expect(redacted).toContain('[REDACTED]');
  });

  it('removes the values of secret environment variables wherever they appear', () => {
    const env = { OPENAI_API_KEY: 'custom-format-key-42', HOME: '/home/tenet' };
    expect(redactSecrets('proxy echoed custom-format-key-42 back; home /home/tenet', env)).toBe(
      'proxy echoed [REDACTED] back; home /home/tenet',
    );
  });

  it('leaves ordinary text alone', () => {
    expect(redactSecrets('openai call failed (HTTP 503): upstream overloaded', {})).toBe(
      'openai call failed (HTTP 503): upstream overloaded',
    );
  });
});
