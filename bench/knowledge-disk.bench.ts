/**
 * Knowledge index disk growth per agent tag (ADR 0023, docs/reliability.md#resource-limits): boots the all-in-one (embedded, offline embeddings,
 * auth off), creates BENCH_AGENTS agents (default 20), ingests one small source tagged with all of them and reports
 * how much `knowledge.sqlite` and its WAL grew — each agent tag is a partition of the sqlite-vec index.
 *
 *   npm run bench:knowledge-disk        (BENCH_AGENTS=20; BENCH_DIMENSIONS=1536 for OpenAI-sized vectors, default 512)
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from '@tenet/hosts';

const AGENTS = Number(process.env['BENCH_AGENTS'] ?? 20);
const DIMENSIONS = process.env['BENCH_DIMENSIONS'] ?? '512';

const indexBytes = (dir: string): number =>
  ['knowledge.sqlite', 'knowledge.sqlite-wal'].map((f) => join(dir, f)).reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);

async function main(): Promise<void> {
  // The memory module reads its embedding provider from the process environment.
  process.env['TENET_EMBEDDING_PROVIDER'] = 'offline';
  process.env['TENET_EMBEDDING_DIMENSIONS'] = DIMENSIONS;
  const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-disk-'));
  const { app, url } = await startAllInOne({
    TENET_MODE: 'embedded',
    TENET_DATA_DIR: dir,
    TENET_DEMO: 'off',
    TENET_LLM_PROVIDER: 'offline',
    TENET_AUTH: 'off',
    TENET_KNOWLEDGE_MAX_AGENT_IDS: String(Math.max(AGENTS, 1)),
    TENET_KNOWLEDGE_MAX_PARTITIONS: String(AGENTS + 2),
  });
  try {
    const post = async (path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(((await post('/agents', { name: `agent ${i}` })).body as { id: string }).id);
    const source = (id: string, agentIds: string[]) => ({
      id,
      title: id,
      format: 'markdown',
      content: '# Refunds\nRefunds within 30 days.',
      agent_ids: agentIds,
    });
    await post('/knowledge/sources', source('warm-up', agents.slice(0, 1)));
    const before = indexBytes(dir);
    const started = performance.now();
    const reply = await post('/knowledge/sources', source('tagged', agents));
    const ms = performance.now() - started;
    const grown = indexBytes(dir) - before;
    console.log(
      JSON.stringify({
        agents: AGENTS,
        dimensions: Number(DIMENSIONS),
        status: reply.status,
        grown_bytes: grown,
        per_agent_bytes: Math.round(grown / Math.max(AGENTS, 1)),
        ingest_ms: Math.round(ms),
      }),
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
