/**
 * A process that ingests into the embedded knowledge index with its graphs on worker threads, waits until every worker
 * saved its shard files, then ingests the tail and prints `tail` (`hnsw-graph-workers.int.spec.ts` kills it with SIGKILL
 * then: the next open must load the saved files and replay the tail only).
 *   graph-threads-ingest.fixture.ts <data dir> <sources before the save> <sources after it>
 */
import { SqliteKnowledgeIndex } from '../sqlite-knowledge-index.js';
import { seededChunks, seededSource } from './graph-corpus.js';

const [dataDir, before, after] = process.argv.slice(2);
if (!dataDir || !before || !after) throw new Error('usage: graph-threads-ingest.fixture.ts <data dir> <sources before> <sources after>');
const index = new SqliteKnowledgeIndex({ dataDir, graphThreads: 2, graphThreadsFrom: 0, graphSaveIdleMs: 200 });
for (let s = 0; s < Number(before); s++) await index.replaceSource(seededSource(s), seededChunks(s));
for (;;) {
  const stats = await index.graphWorkerStats();
  if (stats.every((shard) => shard.saves > 0 && shard.pending === 0)) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write('saved\n');
for (let s = Number(before); s < Number(before) + Number(after); s++) await index.replaceSource(seededSource(s), seededChunks(s));
process.stdout.write('tail\n');
// Killed here; never closed.
setInterval(() => undefined, 1_000);
