import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for servers a test starts in another process. Asking the kernel for port 0 and handing the number on is a
 * race: between closing the probe and the child's `listen`, the kernel may give that same number to any outgoing
 * connection as its local port (port 0 and outgoing sockets share the ephemeral range), and a loaded CI machine
 * opens thousands. So these ports come from below the ephemeral range, which the kernel never hands out on its
 * own, and each Jest worker draws from its own stripe so that two workers never pick the same one.
 */
const LOWEST = 10_000;
const STRIPES = 8;

function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > LOWEST + STRIPES * 100) return low;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152
  }
  return process.platform === 'linux' ? 32_768 : 49_152;
}

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A base port with it and the next `count - 1` ports free (the launcher puts matchers and metering on PORT+1…). */
export async function freePortRange(count: number): Promise<number> {
  const stripeSize = Math.floor((ephemeralStart() - LOWEST) / STRIPES);
  if (count < 1 || count > stripeSize / 4)
    throw new RangeError(`freePortRange: count must be 1..${Math.floor(stripeSize / 4)}, got ${count}`);
  const worker = Number(process.env['JEST_WORKER_ID'] ?? '1');
  const stripeStart = LOWEST + (((Number.isInteger(worker) && worker > 0 ? worker : 1) - 1) % STRIPES) * stripeSize;
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const base = stripeStart + Math.floor(Math.random() * (stripeSize - count));
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`freePortRange: no ${count} free ports in a row in ${stripeStart}..${stripeStart + stripeSize - 1}`);
}

/** One free port below the ephemeral range (see above). */
export function freePort(): Promise<number> {
  return freePortRange(1);
}
