import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
  tags?: { name: string }[];
}

/** Every `$ref` inside a schema (nested in arrays, oneOf, additionalProperties, …). */
const refsIn = (value: unknown): string[] =>
  value && typeof value === 'object'
    ? Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner)))
    : [];

describe('OpenAPI description (/openapi.json)', () => {
  let dir: string;
  let app: INestApplication;
  let doc: OpenApi;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-openapi-'));
    const started = await startAllInOne({ TENET_DATA_DIR: dir });
    app = started.app;
    url = started.url;
    doc = (await (await fetch(`${url}/openapi.json`)).json()) as OpenApi;
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('describes request bodies with the rules the gateway validates them by', () => {
    const body = doc.paths['/sessions']!['post']!.requestBody!.content['application/json']!.schema;
    expect(body.$ref).toBe('#/components/schemas/SessionCreationDto');
    const session = doc.components.schemas['SessionCreationDto']!;
    expect(session.required).toEqual(['agent_id']);
    expect(session.properties!['agent_id']).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' });
    expect(session.properties!['config']).toEqual({ $ref: '#/components/schemas/SessionConfigDto' });
    expect(doc.components.schemas['SessionConfigDto']!.properties!['ttl_secs']).toMatchObject({
      type: 'integer',
      minimum: 60,
      maximum: 86_400,
    });
    expect(doc.components.schemas['AgentCreationDto']!.required).toContain('name');
  });

  it('covers every write route with a body schema', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!['post', 'patch', 'put'].includes(method) || !operation.requestBody) continue;
        const ref = operation.requestBody.content['application/json']?.schema.$ref;
        if (!ref) continue;
        const name = ref.split('/').at(-1)!;
        expect({ path, method, schema: Object.keys(doc.components.schemas[name]?.properties ?? {}).length > 0 }).toEqual({
          path,
          method,
          schema: true,
        });
      }
    }
  });

  const operations = (): [string, string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]): [string, string, Operation] => [path, method, op]),
    );

  it('documents every operation with a summary, a resource tag, a response schema and its error responses', () => {
    expect(operations().length).toBeGreaterThan(50);
    for (const [path, method, op] of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, summary: typeof op.summary === 'string' && op.summary.length > 5 }).toEqual({ where, summary: true });
      expect({ where, tags: op.tags?.length }).toEqual({ where, tags: 1 });
      const [code, success] = Object.entries(op.responses).find(([c]) => c.startsWith('2'))!;
      if (code !== '204') {
        const schema = success.content?.['application/json']?.schema;
        expect({ where, schema: schema !== undefined && Object.keys(schema).length > 0 }).toEqual({ where, schema: true });
        for (const target of refsIn(schema))
          expect({ where, target, defined: doc.components.schemas[target.split('/').at(-1)!] !== undefined }).toEqual({
            where,
            target,
            defined: true,
          });
      }
      expect({ where, validation: op.responses['422']?.content?.['application/json']?.schema }).toEqual({
        where,
        validation: { $ref: '#/components/schemas/ValidationError' },
      });
      if (path.includes('{')) expect({ where, notFound: op.responses['404'] !== undefined }).toEqual({ where, notFound: true });
      if (op.requestBody) expect({ where, malformed: op.responses['400'] !== undefined }).toEqual({ where, malformed: true });
    }
    expect(doc.tags?.map((t) => t.name)).toEqual(
      expect.arrayContaining(['sessions', 'events', 'capabilities', 'evaluations', 'glossary', 'context-variables']),
    );
  });

  it("documents the events endpoint's query parameters and its SSE form", () => {
    const events = doc.paths['/sessions/{sessionId}/events']!['get']!;
    expect(events.parameters!.filter((p) => p.in === 'query').map((p) => p.name)).toEqual([
      'min_offset',
      'wait_for_data',
      'kinds',
      'source',
      'correlation_id',
      'trace_id',
      'sse',
    ]);
    expect(events.parameters!.every((p) => p.in !== 'query' || p.required === false)).toBe(true);
    expect(Object.keys(events.responses['200']!.content!)).toEqual(['application/json', 'text/event-stream']);
    expect(events.responses['504']).toBeDefined();
    const sessions = doc.paths['/sessions']!['get']!;
    expect(sessions.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(['agent_id', 'customer_id', 'limit', 'cursor']));
    expect(sessions.responses['200']!.content!['application/json']!.schema).toHaveProperty('oneOf');
  });

  it('documents the Idempotency-Key header of both creating POSTs, and leaves out the pages and preflights excluded from it', async () => {
    for (const path of ['/sessions', '/sessions/{sessionId}/events']) {
      const header = doc.paths[path]!['post']!.parameters!.find((p) => p.name === 'Idempotency-Key');
      expect({ path, header }).toEqual({
        path,
        header: {
          name: 'Idempotency-Key',
          in: 'header',
          description: expect.stringContaining('same key'),
          required: false,
          schema: { type: 'string' },
        },
      });
    }
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/admin') || path === '/metrics')).toEqual([]);
    expect(operations().filter(([, method]) => method === 'options')).toEqual([]);
    // Built once, on the first request: later answers (and the UI's copy) are the same document.
    expect(await (await fetch(`${url}/openapi.json`)).json()).toEqual(doc);
    expect((await fetch(`${url}/docs`)).headers.get('content-type')).toContain('text/html');
  });
});
