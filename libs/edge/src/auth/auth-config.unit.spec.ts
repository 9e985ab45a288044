import { accessFor, authorize } from './access-policy.js';
import { authConfigFrom } from './auth-config.js';
import { issueSecret, parseToken, secretMatches } from './api-keys.js';

describe('when the gateway runs open', () => {
  it('npm start on loopback is open by default; beyond loopback or distributed it requires keys', () => {
    expect(authConfigFrom({}, 'embedded', '127.0.0.1')).toMatchObject({ enforced: false });
    expect(authConfigFrom({ TENET_HOST: '0.0.0.0' }, 'embedded', '127.0.0.1')).toMatchObject({ enforced: true });
    expect(authConfigFrom({}, 'distributed', '127.0.0.1')).toMatchObject({ enforced: true });
  });

  it('runs open beyond loopback only when told so in so many words', () => {
    expect(authConfigFrom({ TENET_AUTH: 'off' }, 'distributed', '0.0.0.0')).toMatchObject({ enforced: false, reason: 'TENET_AUTH=off' });
    expect(authConfigFrom({ TENET_AUTH: 'on' }, 'embedded', '127.0.0.1')).toMatchObject({ enforced: true });
    expect(() => authConfigFrom({ TENET_AUTH: 'no' }, 'distributed', '0.0.0.0')).toThrow(/TENET_AUTH must be "on" or "off"/);
    expect(() => authConfigFrom({ TENET_ADMIN_KEY: 'short' }, 'distributed', '0.0.0.0')).toThrow(
      /TENET_ADMIN_KEY must be at least 32 characters/,
    );
  });
});

describe('the access policy', () => {
  it('admin does everything; agent-runtime runs sessions; read-only reads; a session token reads and writes its session only', () => {
    const key = (role: 'admin' | 'agent-runtime' | 'read-only') => ({ kind: 'key' as const, role });
    expect(authorize(accessFor('POST', '/agents'), key('admin'), {})).toBe('allowed');
    expect(authorize(accessFor('POST', '/agents'), key('agent-runtime'), {})).toBe('forbidden');
    expect(authorize(accessFor('POST', '/sessions'), key('agent-runtime'), {})).toBe('allowed');
    expect(authorize(accessFor('POST', '/sessions'), key('read-only'), {})).toBe('forbidden');
    expect(authorize(accessFor('GET', '/agents/:agentId/usage'), key('read-only'), {})).toBe('allowed');
    expect(authorize(accessFor('GET', '/keys'), key('read-only'), {})).toBe('forbidden');
    const token = { kind: 'session-token' as const, sessionId: 's1' };
    expect(authorize(accessFor('POST', '/sessions/:sessionId/events'), token, { sessionId: 's1' })).toBe('allowed');
    expect(authorize(accessFor('POST', '/sessions/:sessionId/events'), token, { sessionId: 's2' })).toBe('forbidden');
    expect(authorize(accessFor('GET', '/agents'), token, {})).toBe('forbidden');
    expect(authorize(accessFor('GET', '/agents'), undefined, {})).toBe('unauthenticated');
    expect(authorize(accessFor('GET', '/healthz'), undefined, {})).toBe('allowed');
  });
});

describe('keys', () => {
  it('are 256-bit random secrets of which only a hash is kept', () => {
    const issued = issueSecret('tnt');
    const parsed = parseToken(issued.token);
    expect(parsed).toMatchObject({ prefix: 'tnt', id: issued.id });
    expect(issued.token).not.toContain(issued.hash);
    expect(secretMatches(parsed!.secret, issued.hash)).toBe(true);
    expect(secretMatches(`${parsed!.secret.slice(0, -1)}A`, issued.hash)).toBe(parsed!.secret.endsWith('A'));
    expect(parseToken('tnt_short_x')).toBeUndefined();
  });
});
