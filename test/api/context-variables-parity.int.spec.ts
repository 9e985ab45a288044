import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { ParlantClient } from 'parlant-client';
import { gatewayHttp } from './support/gateway-http.js';

describe('context variables as Parlant clients create them (no data_type)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created, details } = gatewayHttp(() => url);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-ctxvars-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an untyped variable takes a Parlant-style name and stores any JSON value', async () => {
    const variable = await created<{ id: string; name: string; data_type?: string }>('/context-variables', {
      name: 'UserBalance',
      description: 'Balance',
    });
    expect(variable.name).toBe('UserBalance');
    expect(variable).not.toHaveProperty('data_type');
    for (const [key, data] of [
      ['a', 'text'],
      ['b', 42.5],
      ['c', true],
      ['d', [1, 'two', { three: 3 }]],
      ['e', { nested: { deep: [null, 1] } }],
    ] as const) {
      const stored = await call(`/context-variables/${variable.id}/${key}`, 'PUT', { data });
      expect(stored.status).toBe(200);
      expect((stored.body as { data: unknown }).data).toEqual(data);
      expect(((await call(`/context-variables/${variable.id}/${key}`)).body as { data: unknown }).data).toEqual(data);
    }
    expect((await call(`/context-variables/${variable.id}/z`, 'PUT', {})).status).toBe(422); // data is still required
  });

  it('a typed variable keeps its rules: identifier name and checked values', async () => {
    const refused = await call('/context-variables', 'POST', { name: 'OrderId', data_type: 'String' });
    expect(refused.status).toBe(422);
    expect(details(refused)[0]).toMatchObject({ loc: ['body', 'name'] });
    const typed = await created('/context-variables', { name: 'order_total', data_type: 'Number' });
    expect((await call(`/context-variables/${typed.id}/k`, 'PUT', { data: 'ten' })).status).toBe(422);
    expect((await call(`/context-variables/${typed.id}/k`, 'PUT', { data: 10 })).status).toBe(200);
  });

  it('values carry confidence, source_message_id and extracted_at when given, and refuse bad ones', async () => {
    const variable = await created('/context-variables', { name: 'PlanName' });
    const stored = await call(`/context-variables/${variable.id}/guest`, 'PUT', {
      data: 'gold',
      confidence: 0.8,
      source_message_id: 'evt_1',
      extracted_at: '2026-11-23T10:00:00.000Z',
    });
    expect(stored.body).toMatchObject({
      data: 'gold',
      confidence: 0.8,
      source_message_id: 'evt_1',
      extracted_at: '2026-11-23T10:00:00.000Z',
    });
    const bad = await call(`/context-variables/${variable.id}/guest`, 'PUT', { data: 'x', confidence: 2, extracted_at: 'yesterday' });
    expect(bad.status).toBe(422);
    expect(
      details(bad)
        .map((d) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.confidence', 'body.extracted_at']);
  });

  it("parlant-client's UserBalance flow (another name: the first test keeps UserBalance): a freshness rule without a tool is accepted, and every contextVariables call works", async () => {
    const client = new ParlantClient({ environment: url });
    const variable = await client.contextVariables.create({
      name: 'UserBalances',
      description: 'Stores the account balances of users',
      freshnessRules: '30 2 * * *',
    });
    expect(variable).toMatchObject({ name: 'UserBalances', freshnessRules: '30 2 * * *' });
    expect((await client.contextVariables.list()).map((v) => v.id)).toContain(variable.id);
    const value = await client.contextVariables.setValue(variable.id, 'user_1', {
      data: { balance: 5000.5, currency: 'USD', last_transaction: '2024-03-23T15:30:00Z', status: 'active' },
    });
    expect(value.data).toMatchObject({ balance: 5000.5, currency: 'USD' });
    expect((await client.contextVariables.getValue(variable.id, 'user_1')).data).toMatchObject({ balance: 5000.5 });
    const read = await client.contextVariables.retrieve(variable.id);
    expect(read.contextVariable.id).toBe(variable.id);
    const updated = await client.contextVariables.update(variable.id, {
      description: 'Balances, refreshed nightly',
      freshnessRules: '0 8,20 * * *',
    });
    expect(updated).toMatchObject({ description: 'Balances, refreshed nightly', freshnessRules: '0 8,20 * * *' });
    await client.contextVariables.deleteValue(variable.id, 'user_1');
    await client.contextVariables.delete(variable.id);
    expect((await client.contextVariables.list()).map((v) => v.id)).not.toContain(variable.id);
  });
});
