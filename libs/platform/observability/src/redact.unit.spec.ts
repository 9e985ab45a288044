import { describe, expect, it } from '@jest/globals';
import { redact, REDACTED, redactString } from './redact.js';

describe('redact', () => {
  it('masks provider keys, bearer tokens, URL passwords and KEY=value pairs in text', () => {
    expect(redactString('calling openai with sk-proj-abcdEFGH12345678 failed')).toBe('calling openai with sk-[REDACTED] failed');
    expect(redactString('anthropic key sk-ant-api03-ZZZZZZZZZZZZ')).toBe('anthropic key sk-[REDACTED]');
    expect(redactString('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactString('redis://default:hunter2@redis-master:6379/0')).toBe('redis://default:[REDACTED]@redis-master:6379/0');
    expect(redactString('env OPENAI_API_KEY=abc123 TENET_MODE=embedded')).toBe(`env OPENAI_API_KEY=${REDACTED} TENET_MODE=embedded`);
  });

  it('leaves ordinary text, token counts and URLs without credentials alone', () => {
    const text = 'turn used input_tokens=812 output_tokens=96 via nats://nats:4222 for task-refunds';
    expect(redactString(text)).toBe(text);
  });

  it('replaces values under secret-looking keys at any depth and keeps the rest', () => {
    const value = {
      provider: 'openai',
      apiKey: 'x',
      nested: [{ authorization: 'Bearer y', password: 'p', input_tokens: 3, OPENAI_API_KEY: 'z' }],
      note: 'key sk-abcdefgh12345',
    };
    expect(redact(value)).toEqual({
      provider: 'openai',
      apiKey: REDACTED,
      nested: [{ authorization: REDACTED, password: REDACTED, input_tokens: 3, OPENAI_API_KEY: REDACTED }],
      note: 'key sk-[REDACTED]',
    });
  });

  it('redacts error messages and stacks, and survives cycles', () => {
    const error = new Error('401 from provider for key sk-live1234567890');
    const redacted = redact(error) as Error;
    expect(redacted.message).toBe('401 from provider for key sk-[REDACTED]');
    expect(redacted.stack).not.toContain('sk-live1234567890');
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic['self'] = cyclic;
    expect(redact(cyclic)).toEqual({ name: 'a', self: '[Circular]' });
  });
});
