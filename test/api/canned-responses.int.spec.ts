import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { CannedResponsesRepository } from '@tenet/catalog-data-access';
import { gatewayHttp, logHead as logHeadOf } from './support/gateway-http.js';

interface CannedResponse {
  id: string;
  creation_utc: string;
  value: string;
  fields: { name: string; description: string; examples: string[] }[];
  tags: string[];
  signals: string[];
  metadata: Record<string, unknown>;
  field_dependencies: string[];
}

describe('canned responses (Parlant /canned_responses, event-sourced)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let store: EventStore;
  let agentA: string;
  let agentB: string;
  let vip: string;

  const { call, created, details, ids } = gatewayHttp(() => url);
  const logHead = (): Promise<number> => logHeadOf(store);
  /** A broken rule is a 422 naming the field and the rule, and the log gains nothing. */
  const expectRejected = async (path: string, method: string, body: unknown, loc: (string | number)[], msg: RegExp): Promise<void> => {
    const head = await logHead();
    const reply = await call(path, method, body);
    expect(reply.status).toBe(422);
    expect(details(reply)).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown })]));
    expect(await logHead()).toBe(head);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-canned-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
    store = app.get<EventStore>(EVENT_STORE);
    agentA = (await created('/agents', { name: 'A' })).id;
    agentB = (await created('/agents', { name: 'B' })).id;
    vip = (await created('/tags', { name: 'vip' })).id;
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates, reads, lists, updates (Parlant's PATCH) and deletes a canned response; it lives in its own stream", async () => {
    const response = await created<CannedResponse>('/canned_responses', {
      value: 'Your account balance is {{balance}}',
      fields: [{ name: 'balance', description: "Account's balance", examples: ['9000'] }],
      tags: [`agent:${agentA}`, vip],
      signals: ['What is my balance?'],
      metadata: { category: 'account', priority: 1 },
      field_dependencies: ['account'],
    });
    expect(response).toEqual({
      id: expect.any(String) as unknown,
      creation_utc: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      value: 'Your account balance is {{balance}}',
      fields: [{ name: 'balance', description: "Account's balance", examples: ['9000'] }],
      tags: [`agent:${agentA}`, vip],
      signals: ['What is my balance?'],
      metadata: { category: 'account', priority: 1 },
      field_dependencies: ['account'],
    });
    expect((await call(`/canned_responses/${response.id}`)).body).toEqual(response);
    expect(ids(await call('/canned_responses'))).toContain(response.id);

    const patched = await call(`/canned_responses/${response.id}`, 'PATCH', {
      value: 'Hi {{name}}, your balance is {{balance}}',
      fields: [
        { name: 'name', description: 'Customer name', examples: ['Alice'] },
        { name: 'balance', description: 'Balance', examples: [] },
      ],
      tags: { add: [`agent:${agentB}`], remove: [vip] },
      metadata: { set: { priority: 2 }, unset: ['category'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...response,
      value: 'Hi {{name}}, your balance is {{balance}}',
      fields: [
        { name: 'name', description: 'Customer name', examples: ['Alice'] },
        { name: 'balance', description: 'Balance', examples: [] },
      ],
      tags: [`agent:${agentA}`, `agent:${agentB}`],
      metadata: { priority: 2 },
    });
    expect((await call(`/canned_responses/${response.id}`)).body).toEqual(patched.body);
    expect((await store.readStream(`canned-${response.id}`)).map((e) => e.type)).toEqual([
      'CannedResponseCreated',
      'CannedResponseUpdated',
    ]);

    expect((await call(`/canned_responses/${response.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/canned_responses/${response.id}`)).status).toBe(404);
    expect((await call(`/canned_responses/${response.id}`, 'PATCH', { value: 'x' })).status).toBe(404);
    expect((await call(`/canned_responses/${response.id}`, 'DELETE')).status).toBe(404);
    expect((await store.readStream(`canned-${response.id}`)).map((e) => e.type)).toEqual([
      'CannedResponseCreated',
      'CannedResponseUpdated',
      'CannedResponseDeleted',
    ]);
  });

  it('without fields, the fields are the placeholders of the value (in order, once each); a new value without fields re-derives them', async () => {
    const response = await created<CannedResponse>('/canned_responses', {
      value: 'Order {{ order_id }} ships {{date}}; order {{order_id}} again',
    });
    expect(response).toMatchObject({
      fields: [
        { name: 'order_id', description: '', examples: [] },
        { name: 'date', description: '', examples: [] },
      ],
      tags: [],
      signals: [],
      metadata: {},
      field_dependencies: [],
    });
    const patched = (await call(`/canned_responses/${response.id}`, 'PATCH', { value: 'Thanks, {{name}}!' })).body as CannedResponse;
    expect(patched.fields).toEqual([{ name: 'name', description: '', examples: [] }]);
    expect((await call(`/canned_responses/${response.id}`, 'DELETE')).status).toBe(204);
  });

  it('lists by tags like Parlant: responses carrying ANY of them (?tags=a&tags=b or ?tags=a,b); no tags = all', async () => {
    const forA = await created('/canned_responses', { value: 'A says hi', tags: [`agent:${agentA}`] });
    const forVip = await created('/canned_responses', { value: 'VIP hello', tags: [vip] });
    const plain = await created('/canned_responses', { value: 'Hello' });
    expect(ids(await call(`/canned_responses?tags=agent:${agentA}`))).toEqual([forA.id]);
    expect(ids(await call(`/canned_responses?tags=agent:${agentA}&tags=${vip}`))).toEqual([forA.id, forVip.id].sort());
    expect(ids(await call(`/canned_responses?tags=agent:${agentA},${vip}`))).toEqual([forA.id, forVip.id].sort());
    expect(ids(await call('/canned_responses'))).toEqual(expect.arrayContaining([forA.id, forVip.id, plain.id]));
    for (const c of [forA, forVip, plain]) expect((await call(`/canned_responses/${c.id}`, 'DELETE')).status).toBe(204);
  });

  it.each<[string, Record<string, unknown>, (string | number)[], RegExp]>([
    ['no value', { fields: [] }, ['body', 'value'], /value must be 1-5000 characters/],
    ['an empty value', { value: '', fields: [] }, ['body', 'value'], /value must be 1-5000 characters/],
    ['a value of 5001 characters', { value: 'v'.repeat(5001) }, ['body', 'value'], /value must be 1-5000 characters/],
    [
      'a placeholder the fields do not declare',
      { value: 'Hello {{name}}', fields: [] },
      ['body', 'fields'],
      /value uses \{\{name\}\} but fields does not declare "name"/,
    ],
    [
      'a field declared twice',
      { value: 'Hello {{name}}', fields: [{ name: 'name' }, { name: 'name' }] },
      ['body', 'fields', 1, 'name'],
      /declares "name" twice/,
    ],
    [
      'a field name that is no identifier',
      { value: 'Hello', fields: [{ name: 'first name' }] },
      ['body', 'fields', 0, 'name'],
      /fields\[\]\.name must be an identifier/,
    ],
    ['fields that are not a list', { value: 'Hello', fields: 'name' }, ['body', 'fields'], /must be an array/],
    [
      'an unknown tag',
      { value: 'Hello', tags: ['ghost'] },
      ['body', 'tags', 0],
      /tags must reference existing tags: tag ghost does not exist/,
    ],
    ['an agent tag of no agent', { value: 'Hello', tags: ['agent:ghost'] }, ['body', 'tags', 0], /agent ghost does not exist/],
    ['metadata that is not an object', { value: 'Hello', metadata: 'x' }, ['body', 'metadata'], /metadata must be an object/],
    ['signals that are not strings', { value: 'Hello', signals: [1] }, ['body', 'signals'], /each value in signals must be a string/],
    ['an unknown field', { value: 'Hello', mood: 'happy' }, ['body', 'mood'], /should not exist/],
  ])('POST with %s → 422, nothing written', async (_title, body, loc, msg) => {
    await expectRejected('/canned_responses', 'POST', body, loc, msg);
  });

  it.each<[string, Record<string, unknown>, (string | number)[], RegExp]>([
    [
      'fields without a new value (Parlant)',
      { fields: [{ name: 'x' }] },
      ['body', 'fields'],
      /fields cannot be updated without providing a new value/,
    ],
    ['a value using an undeclared field', { value: 'Bye {{who}}', fields: [] }, ['body', 'fields'], /does not declare "who"/],
    ['an unknown tag to add', { tags: { add: ['ghost'] } }, ['body', 'tags', 'add', 0], /tag ghost does not exist/],
    ['an empty value', { value: '' }, ['body', 'value'], /value must be 1-5000 characters/],
    ['metadata that is no {set, unset}', { metadata: { set: 'x' } }, ['body', 'metadata', 'set'], /must be an object/],
  ])('PATCH with %s → 422, the response unchanged and nothing written', async (_title, body, loc, msg) => {
    const response = await created<CannedResponse>('/canned_responses', {
      value: 'Hello {{name}}',
      fields: [{ name: 'name', description: 'who', examples: ['Ann'] }],
    });
    await expectRejected(`/canned_responses/${response.id}`, 'PATCH', body, loc, msg);
    expect((await call(`/canned_responses/${response.id}`)).body).toEqual(response);
    expect((await call(`/canned_responses/${response.id}`, 'DELETE')).status).toBe(204);
  });

  it("forAgent(agentId): the agent's own (agent:<id>) and unscoped responses, with the value's placeholders as fields", async () => {
    const own = await created('/canned_responses', {
      value: 'Order {{order_id}} is on its way, {{name}}.',
      fields: [{ name: 'order_id' }, { name: 'name' }, { name: 'unused' }],
      tags: [`agent:${agentA}`],
    });
    const others = await created('/canned_responses', { value: 'B only', tags: [`agent:${agentB}`] });
    const everyone = await created('/canned_responses', { value: 'Anything else?' });
    const tagged = await created('/canned_responses', { value: 'For VIPs: {{perk}}', tags: [vip] });
    const repository = app.get(CannedResponsesRepository);
    const forA = await repository.forAgent(agentA);
    expect(forA.filter((c) => [own.id, others.id, everyone.id, tagged.id].includes(c.id)).sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [
        { id: own.id, value: 'Order {{order_id}} is on its way, {{name}}.', fields: ['order_id', 'name'] },
        { id: everyone.id, value: 'Anything else?', fields: [] },
        { id: tagged.id, value: 'For VIPs: {{perk}}', fields: ['perk'] },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    expect((await repository.forAgent(agentB)).map((c) => c.id)).toEqual(expect.arrayContaining([others.id, everyone.id]));
    expect((await repository.forAgent(agentB)).map((c) => c.id)).not.toContain(own.id);
    for (const c of [own, others, everyone, tagged]) expect((await call(`/canned_responses/${c.id}`, 'DELETE')).status).toBe(204);
  });
});
