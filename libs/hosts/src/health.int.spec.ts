import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from './testing-host.js';

describe('GET /healthz and /readyz (all-in-one, embedded)', () => {
  it('answers liveness without touching dependencies, and readiness with each dependency checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-health-'));
    const { app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' });
    try {
      const live = await fetch(`${url}/healthz`);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ status: 'ok', mode: 'embedded' });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      // Embedded: no NATS, no Redis; the SQLite log must take writes.
      expect(await ready.json()).toMatchObject({ status: 'ok', info: { event_log: { status: 'up' } }, error: {} });
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
