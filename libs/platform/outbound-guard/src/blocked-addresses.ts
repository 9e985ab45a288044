import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Loopback, private, link-local (incl. 169.254.169.254 metadata), unique-local, multicast or reserved; a non-IP counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) return blocked.check(bare, 'ipv6');
  return true;
}

/**
 * A `dns.lookup` for an HTTP agent (`connect.lookup`) that fails when the name resolves to a blocked address: what
 * is checked is what is dialled. `refuse` makes the error (each caller names its own setting in it).
 */
export function guardedLookup(refuse: (hostname: string, address: string) => Error): typeof dnsLookup {
  return ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      error: Error | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    dnsLookup(hostname, { ...opts, all: true }, (error, addresses) => {
      if (error) return cb(error, []);
      const bad = addresses.find((entry) => isBlockedAddress(entry.address));
      if (bad) return cb(refuse(hostname, bad.address), []);
      if (opts.all) return cb(null, addresses);
      const first = addresses[0];
      if (!first) return cb(new Error(`no address for ${hostname}`), []);
      cb(null, first.address, first.family);
    });
  }) as typeof dnsLookup;
}

/**
 * The first blocked address `hostname` is or resolves to; `undefined` when all are public. A name that does not
 * resolve is `undefined` too (the connect-time lookup checks it again when it is dialled).
 */
export async function blockedAddressOf(hostname: string): Promise<string | undefined> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0 || /^::ffff:/i.test(bare)) return isBlockedAddress(bare) ? bare : undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookupAsync(bare, { all: true });
  } catch {
    return undefined;
  }
  return addresses.find((entry) => isBlockedAddress(entry.address))?.address;
}
