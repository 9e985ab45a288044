import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { keyedHttp } from './support/gateway-http.js';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-knowledge-limits-test-0123';

/** Bytes of the knowledge index on disk: the database and its write-ahead log. */
const indexBytes = (dir: string): number =>
  ['knowledge.sqlite', 'knowledge.sqlite-wal'].map((f) => join(dir, f)).reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);

async function start(env: Record<string, string>): Promise<{ app: INestApplication; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-limits-'));
  const { app, url } = await startAllInOne({
    TENET_MODE: 'embedded',
    TENET_DATA_DIR: dir,
    TENET_DEMO: 'off',
    TENET_LLM_PROVIDER: 'offline',
    TENET_RATE_LIMIT_PER_KEY: '0',
    ...env,
  });
  return { app, url, dir };
}

const send = (url: string, method: string, path: string, body?: unknown, key?: string) => keyedHttp(() => url)(method, path, key, body);

const source = (id: string, agentIds: string[], content = '# Refunds\nRefunds within 30 days.') => ({
  id,
  title: id,
  format: 'markdown',
  content,
  agent_ids: agentIds,
});

/** One knowledge source request must not fill the disk (ADR 0023) — tags are bounded, real and cheap. */
describe('knowledge limits: agent tags and per-workspace quotas', () => {
  describe('open mode (auth off)', () => {
    let app: INestApplication;
    let url: string;
    let dir: string;
    const agents: string[] = [];

    beforeAll(async () => {
      ({ app, url, dir } = await start({
        TENET_AUTH: 'off',
        TENET_KNOWLEDGE_MAX_PARTITIONS: '25',
        TENET_KNOWLEDGE_MAX_VECTOR_BYTES: '1MB',
      }));
      for (let i = 0; i < 24; i++) agents.push(((await send(url, 'POST', '/agents', { name: `agent ${i}` })).body as { id: string }).id);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses more agent ids than the per-source limit with a 422 naming it, before anything is written', async () => {
      const before = indexBytes(dir);
      const many = Array.from({ length: 101 }, (_, i) => `agent-${i}`);
      const reply = await send(url, 'POST', '/knowledge/sources', source('too-many', many));
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({
        detail: [
          {
            loc: ['body', 'agent_ids'],
            msg: 'agent_ids may name at most 100 agents per source (TENET_KNOWLEDGE_MAX_AGENT_IDS), got 101',
            type: 'value_error.limit',
          },
        ],
      });
      expect(indexBytes(dir)).toBe(before);
    });

    it('refuses agent ids that name no agent (404 as for another workspace’s), without writing', async () => {
      const before = indexBytes(dir);
      const reply = await send(url, 'POST', '/knowledge/sources', source('ghosts', [agents[0]!, 'no-such-agent']));
      expect(reply).toMatchObject({ status: 404, body: { detail: 'agent no-such-agent not found' } });
      expect((await send(url, 'GET', '/knowledge/sources/ghosts')).status).toBe(404);
      expect(indexBytes(dir)).toBe(before);
      // A deleted agent is no agent either.
      const gone = ((await send(url, 'POST', '/agents', { name: 'short-lived' })).body as { id: string }).id;
      expect((await send(url, 'DELETE', `/agents/${gone}`)).status).toBe(204);
      expect((await send(url, 'POST', '/knowledge/sources', source('to-the-departed', [gone]))).status).toBe(404);
    });

    it('grows the index by kilobytes, not megabytes, per agent partition', async () => {
      // Settle the WAL first, so the measurement is of this source alone.
      await send(url, 'POST', '/knowledge/sources', source('warm-up', [agents[0]!]));
      const before = indexBytes(dir);
      const reply = await send(url, 'POST', '/knowledge/sources', source('twenty-agents', agents.slice(0, 20)));
      expect(reply.status).toBe(201);
      const grown = indexBytes(dir) - before;
      // sqlite-vec's default chunk allocated 2 MB per partition at 512 dimensions (6.3 MB at 1536): 40 MB here.
      expect(grown).toBeLessThan(4 * 1024 ** 2);
      const hits = (
        (await send(url, 'GET', `/knowledge/search?q=refunds&agent_id=${agents[19]!}`)).body as { chunks: { source_id: string }[] }
      ).chunks;
      expect(hits.map((h) => h.source_id)).toContain('twenty-agents');
    });

    it('refuses a source that would take the workspace over its partitions or vector bytes, naming the limit', async () => {
      // 20 partitions in use (agents 0-19); 4 more agents and the untagged partition make the 25 allowed.
      expect((await send(url, 'POST', '/knowledge/sources', source('four-more', agents.slice(20, 24)))).status).toBe(201);
      expect((await send(url, 'POST', '/knowledge/sources', source('same-partition', [agents[0]!]))).status).toBe(201);
      const untagged = await send(url, 'POST', '/knowledge/sources', source('untagged', []));
      expect(untagged.status).toBe(201);
      const extra = ((await send(url, 'POST', '/agents', { name: 'agent 25' })).body as { id: string }).id;
      const refused = await send(url, 'POST', '/knowledge/sources', source('partition-26', [extra]));
      expect(refused.status).toBe(422);
      expect((refused.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]).toMatchObject({
        loc: ['body', 'agent_ids'],
        msg: "agent_ids would give workspace default's knowledge 26 agent partitions, over its limit of 25 (TENET_KNOWLEDGE_MAX_PARTITIONS)",
      });
      // Replacing a source counts it once: re-tagging an existing source within the budget is fine.
      expect((await send(url, 'POST', '/knowledge/sources', source('same-partition', [agents[1]!]))).status).toBe(201);

      // Vector bytes: 512 dimensions × 4 bytes a vector; a long document over one agent passes 1 MB.
      const long = Array.from({ length: 600 }, (_, i) => `## Section ${i}\n${'Lorem ipsum dolor sit amet. '.repeat(60)}`).join('\n');
      const big = await send(url, 'POST', '/knowledge/sources', source('big', [agents[2]!], long));
      expect(big.status).toBe(422);
      expect((big.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]?.loc).toEqual(['body', 'content']);
      expect((big.body as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(
        /^content would bring workspace default's knowledge vectors \(one per chunk and agent\) to [\d.]+ MB, over its limit of 1\.0 MB \(TENET_KNOWLEDGE_MAX_VECTOR_BYTES\)$/,
      );
      expect((await send(url, 'GET', '/knowledge/sources/big')).status).toBe(404);
    });
  });

  describe('workspaces (auth on)', () => {
    let app: INestApplication;
    let url: string;
    let dir: string;
    const ws = { acme: { key: '', agents: [] as string[] }, globex: { key: '', agents: [] as string[] } };

    beforeAll(async () => {
      ({ app, url, dir } = await start({ TENET_AUTH: 'on', TENET_ADMIN_KEY: ADMIN_KEY, TENET_KNOWLEDGE_MAX_PARTITIONS: '2' }));
      for (const name of ['acme', 'globex'] as const) {
        ws[name].key = (
          (await send(url, 'POST', '/keys', { name: `${name} admin`, role: 'admin', workspace_id: name }, ADMIN_KEY)).body as {
            key: string;
          }
        ).key;
        for (let i = 0; i < 3; i++)
          ws[name].agents.push(((await send(url, 'POST', '/agents', { name: `${name} ${i}` }, ws[name].key)).body as { id: string }).id);
      }
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("counts each workspace's partitions against its own limit", async () => {
      expect((await send(url, 'POST', '/knowledge/sources', source('acme-a', ws.acme.agents.slice(0, 2)), ws.acme.key)).status).toBe(201);
      expect((await send(url, 'POST', '/knowledge/sources', source('globex-a', ws.globex.agents.slice(0, 2)), ws.globex.key)).status).toBe(
        201,
      );
      const third = await send(url, 'POST', '/knowledge/sources', source('acme-b', [ws.acme.agents[2]!]), ws.acme.key);
      expect(third.status).toBe(422);
      expect(JSON.stringify(third.body)).toContain("workspace acme's knowledge 3 agent partitions, over its limit of 2");
      // Another workspace's agent is refused like an unknown one.
      expect((await send(url, 'POST', '/knowledge/sources', source('acme-c', [ws.globex.agents[0]!]), ws.acme.key)).status).toBe(404);
    });
  });
});
