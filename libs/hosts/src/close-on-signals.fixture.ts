// Test fixture, run as a separate OS process by close-on-signals.int.spec.ts: an app whose close never finishes
// (as when a step cannot end), closed on SIGTERM with a 1 s grace period.
import { closeOnSignals } from './service-host.js';

closeOnSignals(
  { close: () => new Promise<void>(() => undefined) },
  { log: () => undefined, error: (message: unknown) => process.stderr.write(`${String(message)}\n`), warn: () => undefined },
  1_000,
);
process.stdout.write('fixture ready\n');
setInterval(() => undefined, 60_000);
