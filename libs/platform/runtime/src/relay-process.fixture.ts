// Test fixture, run as a separate OS process by relay-leadership.int.spec.ts: a distributed platform on
// TENET_DATA_DIR whose relay says which role it took ("relay-fixture ready leader|standby"), then runs until it
// is killed (SIGKILL: a crash that leaves its lease behind) or stopped (SIGTERM: a clean release).
import { loadPlatformConfig } from './platform-config.js';
import { openPlatform } from './platform-adapters.js';

const platform = await openPlatform(loadPlatformConfig({ ...process.env, TENET_MODE: 'distributed' }, 'relay-fixture'));
await platform.relay.start();
process.stdout.write(`relay-fixture ready ${platform.relay.status().role}\n`);
process.once('SIGTERM', () => void platform.close().then(() => process.exit(0)));
