import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { openKnowledgeIndex } from './memory.module.js';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';

describe('TENET_KNOWLEDGE_INDEX', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-choice-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const embedded = loadPlatformConfig({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir });

  it('is the SQLite index in the data dir by default', async () => {
    const index = await openKnowledgeIndex(embedded, {});
    expect(index).toBeInstanceOf(SqliteKnowledgeIndex);
    await index.close();
  });

  it('refuses an unknown value, and mongodb without a distributed MONGO_URL, naming the setting', async () => {
    await expect(openKnowledgeIndex(embedded, { TENET_KNOWLEDGE_INDEX: 'qdrant' })).rejects.toThrow(
      'TENET_KNOWLEDGE_INDEX must be one of sqlite, mongodb (got "qdrant")',
    );
    await expect(openKnowledgeIndex(embedded, { TENET_KNOWLEDGE_INDEX: 'mongodb' })).rejects.toThrow(
      'TENET_KNOWLEDGE_INDEX=mongodb needs TENET_MODE=distributed and MONGO_URL',
    );
  });
});
