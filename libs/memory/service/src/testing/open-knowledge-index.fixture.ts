/**
 * A process that opens the embedded knowledge index in the data dir given as its argument and prints its readiness
 * every few milliseconds, one JSON line each (`lexical-open.int.spec.ts` kills it with SIGKILL while the lexical
 * side is still opening).
 */
import { SqliteKnowledgeIndex } from '../sqlite-knowledge-index.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: open-knowledge-index.fixture.ts <data dir>');
const index = new SqliteKnowledgeIndex({ dataDir });
const report = (): void => {
  process.stdout.write(`${JSON.stringify(index.readiness())}\n`);
};
report();
setInterval(report, 5);
