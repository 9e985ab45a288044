import { appendAllowedHost, isAllowedByList, isBlockedAddress, outboundPolicyFromEnv } from './outbound.js';

describe('outbound guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '::',
    'fd00::1',
    'fc00::2',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.1.1',
    'not-an-ip',
  ])('refuses the non-public address %s', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.4.4'])('allows the public address %s', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );

  it('matches allow-list entries by host or host:port (default ports by scheme); * allows every target', () => {
    const policy = outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: 'tools.internal, 127.0.0.1:9000,[::1]:81' });
    expect(isAllowedByList(policy, new URL('http://tools.internal:1234/x'))).toBe(true);
    expect(isAllowedByList(policy, new URL('http://127.0.0.1:9000/x'))).toBe(true);
    expect(isAllowedByList(policy, new URL('http://127.0.0.1:9001/x'))).toBe(false);
    expect(isAllowedByList(policy, new URL('http://[::1]:81/'))).toBe(true);
    expect(isAllowedByList(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: 'svc:443' }), new URL('https://svc/'))).toBe(true);
    expect(isAllowedByList(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: '*' }), new URL('http://10.0.0.1/'))).toBe(true);
    expect(isAllowedByList(outboundPolicyFromEnv({}, ['127.0.0.1:7000']), new URL('http://127.0.0.1:7000/'))).toBe(true);
  });

  it('refuses bad settings at start, naming the variable', () => {
    expect(() => outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: 'http://x/' })).toThrow('TENET_TOOL_ALLOWED_HOSTS');
    expect(() => outboundPolicyFromEnv({ TENET_TOOL_MAX_RESPONSE_BYTES: '12' })).toThrow('TENET_TOOL_MAX_RESPONSE_BYTES');
    expect(outboundPolicyFromEnv({}).maxResponseBytes).toBe(1024 * 1024);
    expect(appendAllowedHost(undefined, '127.0.0.1:1')).toBe('127.0.0.1:1');
    expect(appendAllowedHost('a', '127.0.0.1:1')).toBe('a,127.0.0.1:1');
  });
});
