import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { MEMORY_RECALL_SUBJECT, type RecallResponseV1 } from '@tenet/contracts';
import type { MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { handbookPdf } from '../../libs/memory/service/src/testing/pdf-fixture.js';
import { gatewayHttp, logHead } from './support/gateway-http.js';

const handbook = `# Returns
## Refund window
You can get a refund within 30 days of delivery if the item is unused.

# Shipping
## Delivery times
Standard delivery takes 3 to 5 working days.
`;

describe('memory and knowledge REST', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let store: EventStore;
  const { call, details } = gatewayHttp(() => url);
  const locs = async (path: string, method: string, body?: unknown): Promise<{ status: number; locs: unknown }> => {
    const reply = await call(path, method, body);
    return {
      status: reply.status,
      locs: Array.isArray((reply.body as { detail?: unknown }).detail)
        ? [...new Set(details(reply).map((d) => JSON.stringify(d.loc)))].map((l) => JSON.parse(l) as unknown)
        : (reply.body as { detail?: unknown }).detail,
    };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-memory-api-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
    store = app.get<EventStore>(EVENT_STORE);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('knowledge sources', () => {
    it('ingests, lists, searches with sources, re-ingests and deletes', async () => {
      const created = await call('/knowledge/sources', 'POST', {
        id: 'help',
        title: 'Help centre',
        url: 'https://shop.example/help',
        format: 'markdown',
        content: handbook,
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 'help', chunk_count: 2, agent_ids: [], url: 'https://shop.example/help' });
      expect(((await call('/knowledge/sources')).body as { id: string }[]).map((s) => s.id)).toContain('help');

      const search = await call('/knowledge/search?q=how%20long%20is%20delivery&max_results=1');
      expect(search.status).toBe(200);
      // The search result: the query, the chunks with their section path and position, and the latency.
      expect(search.body).toEqual({
        query: 'how long is delivery',
        chunks: [
          expect.objectContaining({
            source_id: 'help',
            title: 'Help centre',
            url: 'https://shop.example/help',
            heading: 'Shipping › Delivery times',
            section_path: 'Shipping › Delivery times',
            chunk_index: 1,
            chunk_text: expect.stringContaining('3 to 5') as unknown,
          }),
        ],
        latency_ms: expect.any(Number) as unknown,
        timestamp: expect.any(String) as unknown,
      });
      const chunks = async (path: string): Promise<{ source_id: string; chunk_text: string; score: number }[]> =>
        ((await call(path)).body as { chunks: { source_id: string; chunk_text: string; score: number }[] }).chunks;
      const [hit] = (search.body as { chunks: { score: number }[] }).chunks;
      expect(hit!.score).toBeGreaterThan(0);
      expect(await chunks(`/knowledge/search?q=how%20long%20is%20delivery&threshold=${Math.min(1, hit!.score + 0.01)}`)).toEqual([]);

      await call('/knowledge/sources', 'POST', {
        id: 'help',
        title: 'Help centre',
        format: 'markdown',
        content: '# Returns\nRefunds within 60 days.',
      });
      expect((await chunks('/knowledge/search?q=refund&max_results=10')).map((h) => h.chunk_text)).toEqual(['Refunds within 60 days.']);

      expect((await call('/knowledge/sources/help', 'DELETE')).status).toBe(204);
      expect((await call('/knowledge/sources/help', 'DELETE')).status).toBe(404);
      expect(await call('/knowledge/search?q=refund')).toMatchObject({ status: 200, body: { query: 'refund', chunks: [] } });
    });

    it('scopes search to the agents a source is tagged with', async () => {
      // Tags name existing agents (ADR 0023).
      for (const id of ['agent-a', 'agent-b']) expect((await call('/agents', 'POST', { id, name: id })).status).toBe(201);
      await call('/knowledge/sources', 'POST', {
        id: 'internal',
        title: 'Internal',
        format: 'text',
        content: 'Warranty override procedure.',
        agent_ids: ['agent-a'],
      });
      expect(
        ((await call('/knowledge/search?q=warranty&agent_id=agent-b')).body as { chunks: { source_id: string }[] }).chunks.map(
          (h) => h.source_id,
        ),
      ).not.toContain('internal');
      expect(
        ((await call('/knowledge/search?q=warranty&agent_id=agent-a')).body as { chunks: { source_id: string }[] }).chunks.map(
          (h) => h.source_id,
        ),
      ).toContain('internal');
    });

    it('ingests a PDF upload (base64) by heading, and refuses a bad or encrypted one naming content', async () => {
      const content = Buffer.from(await handbookPdf()).toString('base64');
      const created = await call('/knowledge/sources', 'POST', { id: 'handbook-pdf', title: 'Handbook', format: 'pdf', content });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 'handbook-pdf', format: 'pdf', chunk_count: 3 });
      const hits = (
        (await call('/knowledge/search?q=express%20delivery%20days&max_results=1')).body as {
          chunks: { source_id: string; heading: string }[];
        }
      ).chunks;
      expect(hits[0]).toMatchObject({ source_id: 'handbook-pdf', heading: 'Shipping › Delivery times' });
      const encrypted = readFileSync(new URL('../../libs/memory/service/src/testing/fixtures/encrypted.pdf', import.meta.url)).toString(
        'base64',
      );
      const refused = await call('/knowledge/sources', 'POST', { title: 'Locked', format: 'pdf', content: encrypted });
      expect(refused.status).toBe(422);
      expect(details(refused)).toEqual([
        expect.objectContaining({ loc: ['body', 'content'], msg: expect.stringMatching(/encrypted \(password-protected\) PDF/) }),
      ]);
      expect(await locs('/knowledge/sources', 'POST', { title: 'x', format: 'pdf', content: 'JVBERi0' })).toEqual({
        status: 422,
        locs: [['body', 'content']],
      });
      expect((await call('/knowledge/sources/handbook-pdf', 'DELETE')).status).toBe(204);
    });

    it('takes a whole document (up to the content rule) where other routes keep the 100 kB body limit', async () => {
      const long = `# Long\n\n${'policy text words '.repeat(30_000)}`; // ~540 kB
      expect((await call('/knowledge/sources', 'POST', { id: 'long', title: 'Long', format: 'markdown', content: long })).status).toBe(201);
      expect(
        await locs('/knowledge/sources', 'POST', { title: 'Too long', format: 'markdown', content: `# T\n\n${'x'.repeat(2_000_001)}` }),
      ).toEqual({ status: 422, locs: [['body', 'content']] });
      expect(
        (await call('/knowledge/sources', 'POST', { title: 'Far too long', format: 'markdown', content: 'x'.repeat(2_400_000) })).status,
      ).toBe(413);
      expect((await call('/customers', 'POST', { name: 'x'.repeat(200_000) })).status).toBe(413);
      expect((await call('/knowledge/sources/long', 'DELETE')).status).toBe(204);
    }, 120_000);

    it('refuses bad input naming the field, and an unknown format with 415 naming the supported formats', async () => {
      expect(await locs('/knowledge/sources', 'POST', { title: 'x', format: 'markdown' })).toEqual({
        status: 422,
        locs: [['body', 'content']],
      });
      expect(await locs('/knowledge/sources', 'POST', { title: 'x', format: 'markdown', content: 'x', url: 'ftp://x' })).toEqual({
        status: 422,
        locs: [['body', 'url']],
      });
      expect(await locs('/knowledge/sources', 'POST', { title: 'x', format: 'markdown', content: '# Heading only' })).toEqual({
        status: 422,
        locs: [['body', 'content']],
      });
      const docx = await call('/knowledge/sources', 'POST', { title: 'x', format: 'docx', content: 'UEsDBBQ' });
      expect(docx.status).toBe(415);
      expect(JSON.stringify(docx.body)).toMatch(/markdown, html, text, pdf/);
      expect(await locs('/knowledge/search', 'GET')).toEqual({ status: 422, locs: [['query', 'q']] });
      expect(await locs('/knowledge/search?q=x&max_results=0&threshold=2', 'GET')).toEqual({
        status: 422,
        locs: [
          ['query', 'max_results'],
          ['query', 'threshold'],
        ],
      });
    });
  });

  describe('customer memory', () => {
    // Facts belong to existing customers.
    beforeAll(async () => {
      for (const id of ['cust-1', 'cust-2', 'cust-9']) expect((await call('/customers', 'POST', { id, name: id })).status).toBe(201);
    });

    it('records, supersedes, answers now and at a time, and forgets', async () => {
      const first = await call('/customers/cust-1/memory', 'POST', {
        id: 'f1',
        subject: 'customer',
        predicate: 'lives_in',
        object: 'Paris',
        confidence: 0.9,
      });
      expect(first).toMatchObject({ status: 201, body: { fact: { id: 'f1', object: 'Paris', superseded_at: null }, superseded: [] } });
      const between = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await call('/customers/cust-1/memory', 'POST', {
        id: 'f2',
        subject: 'customer',
        predicate: 'lives_in',
        object: 'Lyon',
      });
      expect(second).toMatchObject({ status: 201, body: { fact: { id: 'f2', object: 'Lyon', confidence: 1 }, superseded: ['f1'] } });

      expect(((await call('/customers/cust-1/memory')).body as { object: string }[]).map((f) => f.object)).toEqual(['Lyon']);
      expect(
        ((await call(`/customers/cust-1/memory?at=${encodeURIComponent(between)}`)).body as { object: string }[]).map((f) => f.object),
      ).toEqual(['Paris']);

      expect((await call('/customers/cust-1/memory/f2', 'DELETE')).status).toBe(204);
      expect((await call('/customers/cust-1/memory')).body).toEqual([]);
      expect((await call('/customers/cust-1/memory/f2', 'DELETE')).status).toBe(204);
      expect((await call('/customers/cust-1/memory/nope', 'DELETE')).status).toBe(404);
    });

    it('refuses bad facts naming the field and writes nothing', async () => {
      const head = await logHead(store);
      expect(await locs('/customers/cust-2/memory', 'POST', { subject: 'customer', predicate: 'lives_in' })).toEqual({
        status: 422,
        locs: [['body', 'object']],
      });
      expect(await locs('/customers/cust-2/memory', 'POST', { subject: 'c', predicate: 'p', object: 'o', confidence: 2 })).toEqual({
        status: 422,
        locs: [['body', 'confidence']],
      });
      expect(await locs('/customers/cust-2/memory', 'POST', { subject: '  ', predicate: 'p', object: 'o' })).toEqual({
        status: 422,
        locs: [['body', 'subject']],
      });
      expect(await locs('/customers/cust-2/memory?at=yesterday', 'GET')).toEqual({ status: 422, locs: [['query', 'at']] });
      expect(await logHead(store)).toBe(head);
    });
  });

  it('answers the per-turn recall in-process in the all-in-one host', async () => {
    await call('/knowledge/sources', 'POST', {
      id: 'recall-src',
      title: 'Returns',
      url: 'https://shop.example/returns',
      format: 'markdown',
      content: '# Refunds\nRefunds are paid within 5 days.',
    });
    await call('/customers/cust-9/memory', 'POST', { subject: 'customer', predicate: 'plan', object: 'premium' });
    const reply = await app
      .get<MessageBus>(MESSAGE_BUS)
      .request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, { agent_id: 'agent-x', customer_id: 'cust-9', message: 'when is my refund paid?' });
    expect(reply.facts.map((f) => f.object)).toEqual(['premium']);
    expect(reply.sources[0]).toMatchObject({ source_id: 'recall-src', heading: 'Refunds', url: 'https://shop.example/returns' });
  });
});
