import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

/** Published example documents (ReadMe's `@readme/oas-examples`, installed from npm), served as a tool service would serve them. */
const EXAMPLES = dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));

const PETSTORE_TOOLS = [
  'addPet',
  'createUser',
  'createUsersWithArrayInput',
  'createUsersWithListInput',
  'deleteOrder',
  'deletePet',
  'deleteUser',
  'findPetsByStatus',
  'findPetsByTags',
  'getInventory',
  'getOrderById',
  'getPetById',
  'getUserByName',
  'loginUser',
  'logoutUser',
  'placeOrder',
  'updatePet',
  'updatePetWithForm',
  'updateUser',
];

/**
 * Real OpenAPI documents (ADR 0022): Petstore v3 as JSON and YAML, OpenAPI 3.1, Swagger 2.0 and USPTO are
 * registered through the API; the operations Tenet can call are tools, the others are listed with the reason.
 */
describe('published OpenAPI documents become tool services (embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let documents: Server;
  let base: string;

  const put = async (
    name: string,
    file: string,
  ): Promise<{
    status: number;
    body: {
      tools: { name: string; parameters: Record<string, unknown>; required: string[] }[];
      skipped?: { operation: string; reason: string }[];
    };
  }> => {
    const response = await fetch(`${url}/services/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'openapi', openapi: { url: 'https://petstore.example.com/v2', source: `${base}/${file}` } }),
    });
    return { status: response.status, body: (await response.json()) as never };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-interop-openapi-'));
    documents = createServer((req, res) => {
      try {
        const file = join(EXAMPLES, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
        if (!file.startsWith(EXAMPLES)) throw new Error('outside');
        res.writeHead(200, { 'content-type': file.endsWith('.yaml') ? 'application/yaml' : 'application/json' }).end(readFileSync(file));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' },
      { toolAllowedHosts: [new URL(base).host] },
    ));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => documents?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['Petstore v3 (JSON)', '3.0/json/petstore.json', [...PETSTORE_TOOLS, 'uploadFile'], []],
    ['Petstore v3 (YAML)', '3.0/yaml/petstore.yaml', [...PETSTORE_TOOLS, 'uploadFile'], []],
    [
      'Petstore (OpenAPI 3.1)',
      '3.1/json/petstore.json',
      PETSTORE_TOOLS,
      [['uploadFile (POST /pet/{petId}/uploadImage)', /application\/octet-stream/]],
    ],
    ['Petstore (Swagger 2.0, converted)', '2.0/json/petstore.json', [...PETSTORE_TOOLS, 'uploadFile'], []],
    ['Petstore (Swagger 2.0, YAML)', '2.0/yaml/petstore.yaml', [...PETSTORE_TOOLS, 'uploadFile'], []],
    ['USPTO', '3.0/json/uspto.json', ['list-data-sets', 'list-searchable-fields', 'perform-search'], []],
    [
      'file uploads (an image body is skipped)',
      '3.0/json/file-uploads.json',
      ['post_anything_multipart_formdata', 'put_anything_multipart_formdata'],
      [['POST /anything/image-png', /image\/png/]],
    ],
  ] as const)('%s: tools counted, skipped operations listed with their reasons', async (_, file, tools, skipped) => {
    const reply = await put(`doc-${file.replace(/[^A-Za-z0-9]+/g, '-')}`.slice(0, 64), file);
    expect(reply.status).toBe(200);
    expect(reply.body.tools.map((t) => t.name).sort()).toEqual([...tools].sort());
    expect(reply.body.skipped ?? []).toEqual(
      skipped.map(([operation, reason]) => ({ operation, reason: expect.stringMatching(reason) as unknown })),
    );
  });

  it('path, query, header and body parameters become one schema; a form body and a body named like a path parameter still make tools', async () => {
    const petstore = (await put('petstore', '3.0/json/petstore.json')).body.tools;
    expect(petstore.find((t) => t.name === 'getPetById')).toMatchObject({
      parameters: { petId: { type: 'integer' } },
      required: ['petId'],
    });
    expect(petstore.find((t) => t.name === 'deletePet')?.parameters).toHaveProperty('api_key');
    expect(petstore.find((t) => t.name === 'updatePetWithForm')?.parameters).toEqual(
      expect.objectContaining({
        petId: expect.anything() as unknown,
        name: expect.anything() as unknown,
        status: expect.anything() as unknown,
      }),
    );
    // User has a username too: the body travels as one `body` argument next to the path's username.
    expect(petstore.find((t) => t.name === 'updateUser')).toMatchObject({
      parameters: { username: { type: 'string' }, body: { type: 'object' } },
      required: expect.arrayContaining(['username']) as unknown,
    });
    const uspto = (await put('uspto', '3.0/json/uspto.json')).body.tools;
    // A urlencoded form body: its fields (criteria, start, rows) next to the path's version and dataset.
    const search = uspto.find((t) => t.name === 'perform-search');
    expect(Object.keys(search?.parameters ?? {}).sort()).toEqual(['criteria', 'dataset', 'rows', 'start', 'version']);
    expect([...(search?.required ?? [])].sort()).toEqual(['dataset', 'version']);
  });
});
