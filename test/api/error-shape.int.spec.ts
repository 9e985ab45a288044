import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

describe('one error shape: { detail } for unknown routes and malformed JSON, as for validation errors', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const raw = async (path: string, method: string, body?: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-errors-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an unknown route or method answers 404 with only a detail string', async () => {
    for (const [path, method] of [
      ['/no-such-resource', 'GET'],
      ['/agents/x/y/z', 'POST'],
      ['/sessions', 'PUT'],
    ] as const) {
      const reply = await raw(path, method);
      expect(reply.status).toBe(404);
      expect(Object.keys(reply.body)).toEqual(['detail']);
      expect(reply.body['detail']).toEqual(expect.stringContaining(path));
    }
  });

  it('a malformed JSON body answers 400 with a FastAPI-style detail naming the body, like a validation error (422)', async () => {
    const malformed = await raw('/agents', 'POST', '{"name": "Ada",');
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body)).toEqual(['detail']);
    expect(malformed.body['detail']).toEqual([
      expect.objectContaining({ loc: ['body'], type: 'json_invalid', msg: expect.stringContaining('not valid JSON') }),
    ]);
    const invalid = await raw('/agents', 'POST', '{}');
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body)).toEqual(['detail']);
    expect(invalid.body['detail']).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'name'] })]));
  });

  it('errors that already carry a detail pass unchanged', async () => {
    expect(await raw('/agents/nope', 'GET')).toEqual({ status: 404, body: { detail: 'agent nope not found' } });
  });
});
