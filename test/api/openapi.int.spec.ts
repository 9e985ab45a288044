import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
}

describe('OpenAPI description (/openapi.json)', () => {
  let dir: string;
  let app: INestApplication;
  let doc: OpenApi;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-openapi-'));
    const started = await startAllInOne({ TENET_DATA_DIR: dir });
    app = started.app;
    doc = (await (await fetch(`${started.url}/openapi.json`)).json()) as OpenApi;
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
    expect(doc.components.schemas['SessionConfigDto']!.properties!['ttl_secs']).toMatchObject({ type: 'integer', minimum: 60, maximum: 86_400 });
    expect(doc.components.schemas['AgentCreationDto']!.required).toContain('name');
  });

  it('covers every write route with a body schema', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!['post', 'patch', 'put'].includes(method) || !operation.requestBody) continue;
        const ref = operation.requestBody.content['application/json']?.schema.$ref;
        if (!ref) continue;
        const name = ref.split('/').at(-1)!;
        expect({ path, method, schema: Object.keys(doc.components.schemas[name]?.properties ?? {}).length > 0 }).toEqual({ path, method, schema: true });
      }
    }
  });
});
