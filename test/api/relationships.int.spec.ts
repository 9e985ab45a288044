import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { RelationshipsRepository } from '@tenet/catalog-data-access';
import { gatewayHttp, logHead as logHeadOf } from './support/gateway-http.js';

interface RelationshipWire {
  id: string;
  kind: string;
  source_guideline?: { id: string; condition: string };
  source_tag?: { id: string; name: string };
  target_guideline?: { id: string; condition: string };
  target_tag?: { id: string; name: string };
}

interface World {
  agent: string;
  refund: string;
  upsell: string;
  greet: string;
  sales: string;
}

describe('relationships (Parlant /relationships, event-sourced)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let store: EventStore;
  let world: World;

  const { call, created, details, ids } = gatewayHttp(() => url);
  const logHead = (): Promise<number> => logHeadOf(store);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-relationships-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
    store = app.get<EventStore>(EVENT_STORE);
    const agent = await created<{ id: string }>('/agents', { name: 'Support' });
    world = {
      agent: agent.id,
      refund: (
        await created('/guidelines', {
          condition: 'The customer asks for a refund',
          action: 'Explain the refund policy',
          tags: [`agent:${agent.id}`],
        })
      ).id,
      upsell: (await created('/guidelines', { condition: 'The customer mentions an order', action: 'Offer the premium plan' })).id,
      greet: (await created('/guidelines', { condition: 'The customer says hello' })).id,
      sales: (await created('/tags', { name: 'sales' })).id,
    };
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates, reads, lists and deletes a relationship in Parlant's shape; it lives in its own stream", async () => {
    const relationship = await created<RelationshipWire>('/relationships', {
      source_guideline: world.refund,
      target_guideline: world.upsell,
      kind: 'priority',
    });
    expect(relationship).toEqual({
      id: expect.any(String) as unknown,
      kind: 'priority',
      source_guideline: expect.objectContaining({
        id: world.refund,
        condition: 'The customer asks for a refund',
        action: 'Explain the refund policy',
        enabled: true,
        criticality: 'medium',
        tags: [`agent:${world.agent}`],
        metadata: {},
        priority: 0,
      }) as unknown,
      target_guideline: expect.objectContaining({ id: world.upsell, condition: 'The customer mentions an order' }) as unknown,
    });
    expect((await call(`/relationships/${relationship.id}`)).body).toEqual(relationship);
    expect(ids(await call('/relationships'))).toContain(relationship.id);
    expect((await store.readStream(`relationship-${relationship.id}`)).map((e) => e.type)).toEqual(['RelationshipCreated']);

    expect((await call(`/relationships/${relationship.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/relationships/${relationship.id}`)).status).toBe(404);
    expect((await call(`/relationships/${relationship.id}`, 'DELETE')).status).toBe(404);
    expect(ids(await call('/relationships'))).not.toContain(relationship.id);
    expect((await store.readStream(`relationship-${relationship.id}`)).map((e) => e.type)).toEqual([
      'RelationshipCreated',
      'RelationshipDeleted',
    ]);
  });

  it('unknown relationship ids are 404', async () => {
    expect((await call('/relationships/nope')).status).toBe(404);
    expect((await call('/relationships/nope', 'DELETE')).status).toBe(404);
  });

  it('relates tags: a tag end is shown as {id, name}; an agent:<id> tag is named after the agent', async () => {
    const fromTag = await created<RelationshipWire>('/relationships', {
      source_tag: world.sales,
      target_guideline: world.greet,
      kind: 'entailment',
    });
    expect(fromTag).toMatchObject({
      kind: 'entailment',
      source_tag: { id: world.sales, name: 'sales' },
      target_guideline: { id: world.greet },
    });
    expect(fromTag).not.toHaveProperty('source_guideline');
    const toAgentTag = await created<RelationshipWire>('/relationships', {
      source_guideline: world.greet,
      target_tag: `agent:${world.agent}`,
      kind: 'dependency',
    });
    expect(toAgentTag.target_tag).toEqual({ id: `agent:${world.agent}`, name: 'Support' });
    for (const r of [fromTag, toAgentTag]) expect((await call(`/relationships/${r.id}`, 'DELETE')).status).toBe(204);
  });

  it.each(['entailment', 'priority', 'dependency', 'dependency_any', 'disambiguation', 'reevaluation', 'overlap'])(
    'accepts kind %s on the wire',
    async (kind) => {
      const relationship = await created<RelationshipWire>('/relationships', {
        source_guideline: world.greet,
        target_guideline: world.upsell,
        kind,
      });
      expect(relationship.kind).toBe(kind);
      expect(((await call(`/relationships?kind=${kind}`)).body as RelationshipWire[]).map((r) => r.id)).toEqual([relationship.id]);
      expect((await call(`/relationships/${relationship.id}`, 'DELETE')).status).toBe(204);
    },
  );

  it('creating the same relationship twice returns the first one and writes nothing (Parlant upserts it)', async () => {
    const first = await created<RelationshipWire>('/relationships', {
      source_guideline: world.refund,
      target_guideline: world.greet,
      kind: 'entailment',
    });
    const head = await logHead();
    const again = await created<RelationshipWire>('/relationships', {
      source_guideline: world.refund,
      target_guideline: world.greet,
      kind: 'entailment',
    });
    expect(again).toEqual(first);
    expect(await logHead()).toBe(head);
    expect((await call(`/relationships/${first.id}`, 'DELETE')).status).toBe(204);
  });

  type Case = [title: string, body: (w: World) => Record<string, unknown>, loc: (string | number)[], msg: RegExp];
  it.each<Case>([
    ['no kind', (w) => ({ source_guideline: w.refund, target_guideline: w.upsell }), ['body', 'kind'], /kind must be one of/],
    [
      'an unknown kind',
      (w) => ({ source_guideline: w.refund, target_guideline: w.upsell, kind: 'likes' }),
      ['body', 'kind'],
      /kind must be one of entailment, priority, dependency, dependency_any, disambiguation, reevaluation, overlap/,
    ],
    [
      'no source',
      (w) => ({ target_guideline: w.upsell, kind: 'priority' }),
      ['body', 'source_guideline'],
      /exactly one of source_guideline and source_tag is required/,
    ],
    [
      'a guideline and a tag as source',
      (w) => ({ source_guideline: w.refund, source_tag: w.sales, target_guideline: w.upsell, kind: 'priority' }),
      ['body', 'source_guideline'],
      /exactly one of source_guideline and source_tag/,
    ],
    [
      'no target',
      (w) => ({ source_guideline: w.refund, kind: 'priority' }),
      ['body', 'target_guideline'],
      /exactly one of target_guideline and target_tag is required/,
    ],
    [
      'a guideline and a tag as target',
      (w) => ({ source_guideline: w.refund, target_guideline: w.upsell, target_tag: w.sales, kind: 'priority' }),
      ['body', 'target_guideline'],
      /exactly one of target_guideline and target_tag/,
    ],
    [
      'an unknown source guideline',
      (w) => ({ source_guideline: 'missing', target_guideline: w.upsell, kind: 'priority' }),
      ['body', 'source_guideline'],
      /guideline missing does not exist/,
    ],
    [
      'an unknown target guideline',
      (w) => ({ source_guideline: w.refund, target_guideline: 'missing', kind: 'priority' }),
      ['body', 'target_guideline'],
      /guideline missing does not exist/,
    ],
    [
      'an unknown source tag',
      (w) => ({ source_tag: 'ghost', target_guideline: w.upsell, kind: 'entailment' }),
      ['body', 'source_tag'],
      /tag ghost does not exist/,
    ],
    [
      'an unknown target tag',
      (w) => ({ source_guideline: w.refund, target_tag: 'ghost', kind: 'entailment' }),
      ['body', 'target_tag'],
      /tag ghost does not exist/,
    ],
    [
      'an agent tag of no agent',
      (w) => ({ source_tag: 'agent:ghost', target_guideline: w.upsell, kind: 'entailment' }),
      ['body', 'source_tag'],
      /agent ghost does not exist/,
    ],
    [
      'a journey tag',
      (w) => ({ source_tag: 'journey:j1', target_guideline: w.upsell, kind: 'entailment' }),
      ['body', 'source_tag'],
      /journey j1 does not exist/,
    ],
    [
      'a guideline related to itself',
      (w) => ({ source_guideline: w.refund, target_guideline: w.refund, kind: 'entailment' }),
      ['body', 'target_guideline'],
      /source and target cannot be the same entity/,
    ],
    [
      'a tag related to itself',
      (w) => ({ source_tag: w.sales, target_tag: w.sales, kind: 'priority' }),
      ['body', 'target_tag'],
      /source and target cannot be the same entity/,
    ],
    [
      'a tool end (Tenet has no tool services)',
      (w) => ({ source_tool: { service_name: 's', tool_name: 't' }, target_guideline: w.upsell, kind: 'reevaluation' }),
      ['body', 'source_tool'],
      /source_tool is not supported/,
    ],
    [
      'a malformed guideline id',
      (w) => ({ source_guideline: 'no spaces', target_guideline: w.upsell, kind: 'priority' }),
      ['body', 'source_guideline'],
      /source_guideline must be 1-64 characters/,
    ],
    [
      'an unknown field',
      (w) => ({ source_guideline: w.refund, target_guideline: w.upsell, kind: 'priority', weight: 3 }),
      ['body', 'weight'],
      /should not exist/,
    ],
  ])('%s → 422 naming the field and rule, nothing written', async (_title, body, loc, msg) => {
    const head = await logHead();
    const before = ids(await call('/relationships'));
    const reply = await call('/relationships', 'POST', body(world));
    expect(reply.status).toBe(422);
    expect(details(reply)).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown })]));
    expect(await logHead()).toBe(head);
    expect(ids(await call('/relationships'))).toEqual(before);
  });

  describe("Parlant's list filters", () => {
    let a: string;
    let b: string;
    let c: string;
    let tag: string;
    const rel: Record<string, string> = {};

    beforeAll(async () => {
      a = (await created('/guidelines', { condition: 'A holds' })).id;
      b = (await created('/guidelines', { condition: 'B holds' })).id;
      c = (await created('/guidelines', { condition: 'C holds' })).id;
      tag = (await created('/tags', { name: 'chain' })).id;
      rel['ab'] = (await created('/relationships', { source_guideline: a, target_guideline: b, kind: 'entailment' })).id;
      rel['bc'] = (await created('/relationships', { source_guideline: b, target_guideline: c, kind: 'entailment' })).id;
      rel['ac'] = (await created('/relationships', { source_guideline: a, target_guideline: c, kind: 'priority' })).id;
      rel['ta'] = (await created('/relationships', { source_tag: tag, target_guideline: a, kind: 'dependency' })).id;
    });

    const expectIds = async (query: string, keys: string[]): Promise<void> => {
      const reply = await call(`/relationships?${query}`);
      expect({ query, status: reply.status, ids: ids(reply) }).toEqual({ query, status: 200, ids: keys.map((k) => rel[k]).sort() });
    };

    it('guideline_id follows same-kind chains by default (indirect=true): descendants as source, ancestors as target', async () => {
      await expectIds(`guideline_id=${a}`, ['ab', 'bc', 'ac', 'ta']);
      await expectIds(`guideline_id=${c}`, ['bc', 'ab', 'ac']);
      await expectIds(`guideline_id=${c}&kind=entailment`, ['bc', 'ab']);
    });

    it('indirect=false gives only the relationships the guideline is an end of', async () => {
      await expectIds(`guideline_id=${a}&indirect=false`, ['ab', 'ac', 'ta']);
      await expectIds(`guideline_id=${c}&indirect=false`, ['bc', 'ac']);
      await expectIds(`guideline_id=${c}&kind=entailment&indirect=false`, ['bc']);
    });

    it("tag_id lists the tag's relationships; kind alone filters every relationship", async () => {
      await expectIds(`tag_id=${tag}&indirect=false`, ['ta']);
      await expectIds(`tag_id=${tag}&kind=entailment&indirect=false`, []);
      const priorities = (await call('/relationships?kind=priority')).body as RelationshipWire[];
      expect(priorities.map((r) => r.id)).toContain(rel['ac']);
      expect(priorities.every((r) => r.kind === 'priority')).toBe(true);
    });

    it('unknown guideline or tag → 404; bad kind, indirect or a tool_id → 422 naming the query parameter', async () => {
      expect((await call('/relationships?guideline_id=ghost')).status).toBe(404);
      expect((await call('/relationships?tag_id=ghost')).status).toBe(404);
      for (const [query, field] of [
        ['kind=likes', 'kind'],
        ['indirect=maybe', 'indirect'],
        ['tool_id=svc:tool', 'tool_id'],
      ]) {
        const reply = await call(`/relationships?${query}`);
        expect({ query, status: reply.status, loc: details(reply)[0]?.loc }).toEqual({ query, status: 422, loc: ['query', field] });
      }
    });

    it("GET /guidelines/{id} shows the guideline's relationships, direct and indirect", async () => {
      const read = (await call(`/guidelines/${c}`)).body as { relationships: RelationshipWire[] };
      expect(read.relationships.map((r) => r.id).sort()).toEqual([rel['ab'], rel['bc'], rel['ac']].sort());
    });

    it('the repository gives the matcher exactly { id, kind, source, target }, by guideline ids or guidelines with tags', async () => {
      const repository = app.get(RelationshipsRepository);
      const forA = await repository.forGuidelines([a]);
      expect(forA.find((r) => r.id === rel['ta'])).toEqual({
        id: rel['ta'],
        kind: 'dependency',
        source: { type: 'tag', id: tag },
        target: { type: 'guideline', id: a },
      });
      expect(forA.map((r) => r.id).sort()).toEqual([rel['ab'], rel['ac'], rel['ta']].sort());
      for (const r of forA) expect(Object.keys(r).sort()).toEqual(['id', 'kind', 'source', 'target']);
      // A guideline carrying the tag reaches the tag's relationships.
      expect((await repository.forGuidelines([{ id: 'someone-else', tags: [tag] }])).map((r) => r.id)).toEqual([rel['ta']]);
      const all = await repository.all();
      expect(all.map((r) => r.id)).toEqual(expect.arrayContaining(Object.values(rel)));
      expect(all.find((r) => r.id === rel['ab'])).toEqual({
        id: rel['ab'],
        kind: 'entailment',
        source: { type: 'guideline', id: a },
        target: { type: 'guideline', id: b },
      });
    });

    it('deleting a guideline deletes its relationships', async () => {
      expect((await call(`/guidelines/${b}`, 'DELETE')).status).toBe(204);
      expect((await call(`/relationships/${rel['ab']}`)).status).toBe(404);
      expect((await call(`/relationships/${rel['bc']}`)).status).toBe(404);
      expect((await call(`/relationships/${rel['ac']}`)).status).toBe(200);
    });
  });
});
