import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';
import { knowledgeIndexConformance } from './testing/knowledge-index.conformance.js';

const dirs: string[] = [];
const files = new WeakMap<SqliteKnowledgeIndex, string>();
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

knowledgeIndexConformance('SQLite (file)', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-'));
    dirs.push(dir);
    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    files.set(index, dir);
    return index;
  },
  async reopen(index) {
    const dir = files.get(index as SqliteKnowledgeIndex)!;
    await index.close();
    return new SqliteKnowledgeIndex({ dataDir: dir });
  },
});

knowledgeIndexConformance('SQLite (in memory)', { create: async () => new SqliteKnowledgeIndex() });
