import { lookup } from 'node:dns';
import { blockedAddressOf, guardedLookup, isBlockedAddress } from './blocked-addresses.js';

describe('blocked addresses (SSRF guard)', () => {
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not-an-ip',
  ])('%s is blocked', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.4.4'])('%s is public', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );

  it('a name or literal is resolved at registration: localhost and literals are caught, an unresolvable name is left to the connect-time check', async () => {
    expect(await blockedAddressOf('localhost')).toMatch(/^(127\.|::1$)/);
    expect(await blockedAddressOf('169.254.169.254')).toBe('169.254.169.254');
    expect(await blockedAddressOf('[::1]')).toBe('::1');
    expect(await blockedAddressOf('8.8.8.8')).toBeUndefined();
    expect(await blockedAddressOf('nothing-here.invalid')).toBeUndefined();
  });

  it("the connect-time lookup refuses a name that resolves to a blocked address, with the caller's error", async () => {
    const guarded = guardedLookup((host, address) => new Error(`refused ${host} at ${address}`));
    const error = await new Promise<Error | null>((resolve) => guarded('localhost', {}, (failure) => resolve(failure)));
    expect(error?.message).toMatch(/^refused localhost at (127\.|::1)/);
    // The unguarded lookup resolves the same name (the refusal is the guard's, not the resolver's).
    expect(
      await new Promise<string>((resolve, reject) =>
        lookup('localhost', (failure, address) => (failure ? reject(failure) : resolve(address))),
      ),
    ).toBeTruthy();
  });
});
