import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from '@tenet/hosts';
import { renderSecurityDoc, routesOf } from '../test/api/support/security-matrix.js';

// Boots the all-in-one (embedded, offline) to read its routes, and writes docs/security.md.
const dir = mkdtempSync(join(tmpdir(), 'tenet-security-docs-'));
const { app } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' });
try {
  const target = new URL('../docs/security.md', import.meta.url);
  writeFileSync(target, renderSecurityDoc(routesOf(app)));
  console.log(`wrote ${target.pathname}`);
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
