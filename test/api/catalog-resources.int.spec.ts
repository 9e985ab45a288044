import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { GuidelinesRepository } from '@tenet/catalog-data-access';
import { startAllInOne as startGateway } from '@tenet/hosts';
import { gatewayHttp } from './support/gateway-http.js';

type Rule = [body: unknown, loc: (string | number)[], msg: RegExp];

/** Test titles show the body, shortened: some bodies are 2,000 characters long. */
const titled = (rules: Rule[]): [string, ...Rule][] =>
  rules.map((rule) => [JSON.stringify(rule[0]).replace(/(.)\1{20,}/g, (run, ch: string) => `${ch}×${run.length}`), ...rule]);

describe('catalog resources: customers, tags, guidelines, context variables, terms (embedded adapters)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  const { call, created, details } = gatewayHttp(() => url);
  const count = async (path: string): Promise<number> => ((await call(path)).body as unknown[]).length;

  /** A broken rule is a 422 naming the field and the rule, and the list shows nothing new. */
  const expectRejected = async (
    path: string,
    listPath: string,
    method: string,
    body: unknown,
    loc: (string | number)[],
    msg: RegExp,
  ): Promise<void> => {
    const before = await count(listPath);
    const reply = await call(path, method, body);
    expect(reply.status).toBe(422);
    expect(details(reply)).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown })]));
    expect(await count(listPath)).toBe(before);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-catalog-'));
    ({ app, url } = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('tags', () => {
    it('creates, reads, lists (by name), renames and deletes a tag; unknown ids are 404', async () => {
      const tag = await created<{ id: string; name: string }>('/tags', { name: 'vip' });
      expect(tag).toMatchObject({ name: 'vip' });
      expect((await call(`/tags/${tag.id}`)).body).toEqual(tag);
      expect(((await call('/tags?name=vip')).body as { id: string }[]).map((t) => t.id)).toEqual([tag.id]);
      expect((await call(`/tags/${tag.id}`, 'PATCH', { name: 'gold' })).body).toMatchObject({ id: tag.id, name: 'gold' });
      expect((await call('/tags?name=vip')).body).toEqual([]);
      expect((await call(`/tags/${tag.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/tags/${tag.id}`)).status).toBe(404);
      expect((await call(`/tags/${tag.id}`, 'PATCH', { name: 'x' })).status).toBe(404);
      expect((await call(`/tags/${tag.id}`, 'DELETE')).status).toBe(404);
    });

    it.each(
      titled([
        [{ name: '' }, ['body', 'name'], /name must be 1-100 characters/],
        [{}, ['body', 'name'], /name must be 1-100 characters/],
        [{ name: 'a', color: 'red' }, ['body', 'color'], /should not exist/],
      ] as Rule[]),
    )('%s → 422, nothing stored', async (_title, body, loc, msg) => {
      await expectRejected('/tags', '/tags', 'POST', body, loc, msg);
    });
  });

  describe('customers', () => {
    it('has the built-in guest customer, listed first, which can be changed but not deleted', async () => {
      expect((await call('/customers/guest')).body).toMatchObject({ id: 'guest', name: 'Guest', metadata: {}, tags: [] });
      expect(((await call('/customers')).body as { id: string }[])[0]?.id).toBe('guest');
      expect((await call('/customers/guest', 'PATCH', { metadata: { set: { channel: 'web' } } })).body).toMatchObject({
        id: 'guest',
        name: 'Guest',
        metadata: { channel: 'web' },
      });
      expect((await call('/customers/guest')).body).toMatchObject({ id: 'guest', metadata: { channel: 'web' } });
      expect((await call('/customers/guest', 'PATCH', { name: 'Visitor' })).body).toMatchObject({
        id: 'guest',
        name: 'Visitor',
        metadata: { channel: 'web' },
      });
      expect((await call('/customers/guest', 'DELETE')).status).toBe(422);
      expect((await call('/customers/guest')).status).toBe(200);
      expect((await call('/customers', 'POST', { id: 'guest', name: 'Impostor' })).status).toBe(422);
    });

    it('creates, reads, lists, updates (metadata set/unset, tags add/remove) and deletes a customer', async () => {
      const tag = await created('/tags', { name: 'premium' });
      const other = await created('/tags', { name: 'beta' });
      const customer = await created<{ id: string; creation_utc: string }>('/customers', {
        name: 'Scooby',
        metadata: { VIP: 'Yes', email: 'scooby@dooby.do' },
        tags: [tag.id],
      });
      expect(customer).toMatchObject({ name: 'Scooby', metadata: { VIP: 'Yes', email: 'scooby@dooby.do' }, tags: [tag.id] });
      expect(customer.id).toMatch(/^[A-Za-z0-9]{10}$/);
      expect(Number.isNaN(Date.parse(customer.creation_utc))).toBe(false);
      expect((await call(`/customers/${customer.id}`)).body).toEqual(customer);
      expect(((await call('/customers')).body as { id: string }[]).map((c) => c.id)).toContain(customer.id);
      const updated = await call(`/customers/${customer.id}`, 'PATCH', {
        name: 'Scrappy',
        metadata: { set: { tier: 'gold' }, unset: ['email'] },
        tags: { add: [other.id], remove: [tag.id] },
      });
      expect(updated.body).toEqual({ ...customer, name: 'Scrappy', metadata: { VIP: 'Yes', tier: 'gold' }, tags: [other.id] });
      expect((await call(`/customers/${customer.id}`)).body).toEqual(updated.body);
      expect((await call(`/customers/${customer.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/customers/${customer.id}`)).status).toBe(404);
      expect((await call('/customers/nope', 'PATCH', { name: 'x' })).status).toBe(404);
    });

    it.each(
      titled([
        [{ name: '' }, ['body', 'name'], /name must be 1-100 characters/],
        [{ name: 'A', metadata: { age: 3 } }, ['body', 'metadata'], /metadata must be an object whose values are strings/],
        [{ name: 'A', tags: ['no-such-tag'] }, ['body', 'tags', 0], /tags must reference existing tags: tag no-such-tag does not exist/],
        [
          { name: 'A', tags: ['agent:no-such-agent'] },
          ['body', 'tags', 0],
          /tags must reference existing tags: agent no-such-agent does not exist/,
        ],
        [{ name: 'A', id: 'bad id!' }, ['body', 'id'], /id must be 1-64 characters/],
      ] as Rule[]),
    )('%s → 422, nothing stored', async (_title, body, loc, msg) => {
      await expectRejected('/customers', '/customers', 'POST', body, loc, msg);
    });

    it('rejects a PATCH adding an unknown tag without changing the customer', async () => {
      const customer = await created('/customers', { name: 'Velma' });
      const reply = await call(`/customers/${customer.id}`, 'PATCH', { name: 'V', tags: { add: ['ghost'] } });
      expect(reply.status).toBe(422);
      expect(details(reply)).toContainEqual(expect.objectContaining({ loc: ['body', 'tags', 'add', 0] }));
      expect((await call(`/customers/${customer.id}`)).body).toMatchObject({ name: 'Velma', tags: [] });
    });

    it('pages with a cursor: the guest heads the first page and every customer appears once', async () => {
      for (const name of ['P1', 'P2', 'P3']) await created('/customers', { name });
      const all = ((await call('/customers')).body as { id: string }[]).map((c) => c.id);
      const seen: string[] = [];
      let page = (await call('/customers?limit=2')).body as {
        items: { id: string }[];
        total_count: number;
        has_more: boolean;
        next_cursor?: string;
      };
      expect(page.items[0]?.id).toBe('guest');
      expect(page.total_count).toBe(all.length);
      seen.push(...page.items.map((c) => c.id));
      while (page.has_more) {
        page = (await call(`/customers?limit=2&cursor=${encodeURIComponent(page.next_cursor ?? '')}`)).body as typeof page;
        seen.push(...page.items.map((c) => c.id));
      }
      expect(seen).toEqual(all);
      expect((await call('/customers?limit=0')).status).toBe(422);
      expect((await call('/customers?limit=2&cursor=garbage')).status).toBe(422);
    });
  });

  describe('glossary terms', () => {
    it('creates, reads, lists (by tag), updates and deletes a term', async () => {
      const tag = await created('/tags', { name: 'blockchain' });
      const term = await created<{ id: string }>('/terms', {
        name: 'Gas',
        description: 'A unit of computational effort',
        synonyms: ['Transaction Fee'],
        tags: [tag.id],
      });
      expect(term).toMatchObject({
        name: 'Gas',
        description: 'A unit of computational effort',
        synonyms: ['Transaction Fee'],
        tags: [tag.id],
      });
      expect((await call(`/terms/${term.id}`)).body).toEqual(term);
      expect(((await call(`/terms?tag_id=${tag.id}`)).body as { id: string }[]).map((t) => t.id)).toEqual([term.id]);
      expect((await call(`/terms/${term.id}`, 'PATCH', { synonyms: ['Blockchain Fuel'], tags: { remove: [tag.id] } })).body).toEqual({
        ...term,
        synonyms: ['Blockchain Fuel'],
        tags: [],
      });
      expect((await call(`/terms?tag_id=${tag.id}`)).body).toEqual([]);
      expect((await call(`/terms/${term.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/terms/${term.id}`)).status).toBe(404);
    });

    it.each(
      titled([
        [{ description: 'd' }, ['body', 'name'], /name must not be empty|name must be a string/],
        [{ name: 'Gas', description: '' }, ['body', 'description'], /description must not be empty/],
        [{ name: 'Gas', description: 'd', synonyms: [''] }, ['body', 'synonyms'], /synonyms must not contain empty strings/],
        [{ name: 'Gas', description: 'd', tags: ['ghost'] }, ['body', 'tags', 0], /tags must reference existing tags/],
      ] as Rule[]),
    )('%s → 422, nothing stored', async (_title, body, loc, msg) => {
      await expectRejected('/terms', '/terms', 'POST', body, loc, msg);
    });
  });

  describe('context variables', () => {
    it('creates, reads (with and without values), lists (by tag), updates and deletes a variable', async () => {
      const tag = await created('/tags', { name: 'finance' });
      const variable = await created<{ id: string }>('/context-variables', {
        name: 'user_balance',
        description: 'Stores the account balances of users',
        tags: [tag.id],
        data_type: 'Number',
        extraction_prompt: 'Extract the balance',
        validation: { min: 0, max: 1_000_000 },
        default_value: 0,
      });
      expect(variable).toMatchObject({
        name: 'user_balance',
        data_type: 'Number',
        required: false,
        validation: { min: 0, max: 1_000_000 },
        default_value: 0,
        tags: [tag.id],
      });
      expect((await call(`/context-variables/${variable.id}`)).body).toEqual({ context_variable: variable, key_value_pairs: {} });
      expect((await call(`/context-variables/${variable.id}?include_values=false`)).body).toEqual({ context_variable: variable });
      expect(((await call(`/context-variables?tag_id=${tag.id}`)).body as { id: string }[]).map((v) => v.id)).toEqual([variable.id]);
      const updated = await call(`/context-variables/${variable.id}`, 'PATCH', {
        description: 'Balances',
        required: false,
        default_value: null,
        tags: { remove: [tag.id] },
      });
      expect(updated.body).toMatchObject({ id: variable.id, description: 'Balances', required: false, tags: [] });
      expect(updated.body).not.toHaveProperty('default_value');
      expect((await call(`/context-variables/${variable.id}?include_values=false`)).body).toEqual({ context_variable: updated.body });
      expect((await call(`/context-variables/${variable.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/context-variables/${variable.id}`)).status).toBe(404);
      expect((await call(`/context-variables/${variable.id}`, 'PATCH', { required: false })).status).toBe(404);
    });

    it('stores values per key, checked against data_type and validation rules', async () => {
      const variable = await created('/context-variables', {
        name: `order_id`,
        data_type: 'String',
        validation: { pattern: '^[0-9]{5,10}$' },
      });
      const customer = await created('/customers', { name: 'Daphne' });
      const set = await call(`/context-variables/${variable.id}/${customer.id}`, 'PUT', { data: '12345' });
      expect(set).toMatchObject({ status: 200, body: { data: '12345' } });
      expect((await call(`/context-variables/${variable.id}/${customer.id}`)).body).toEqual(set.body);
      expect(
        ((await call(`/context-variables/${variable.id}`)).body as { key_value_pairs: Record<string, unknown> }).key_value_pairs,
      ).toEqual({ [customer.id]: set.body });
      const bad = await call(`/context-variables/${variable.id}/${customer.id}`, 'PUT', { data: 'abc' });
      expect(bad.status).toBe(422);
      expect(details(bad)).toContainEqual(expect.objectContaining({ loc: ['body', 'data'], msg: 'data must match pattern ^[0-9]{5,10}$' }));
      expect((await call(`/context-variables/${variable.id}/${customer.id}`, 'PUT', { data: 12345 })).status).toBe(422);
      expect((await call(`/context-variables/${variable.id}/${customer.id}`)).body).toEqual(set.body);
      expect((await call(`/context-variables/${variable.id}/tag:abc`, 'PUT', { data: '99999' })).status).toBe(200);
      expect((await call(`/context-variables/${variable.id}/${customer.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/context-variables/${variable.id}/${customer.id}`)).status).toBe(404);
      expect((await call(`/context-variables/${variable.id}/${customer.id}`, 'DELETE')).status).toBe(404);
      expect((await call(`/context-variables/nope/${customer.id}`, 'PUT', { data: '12345' })).status).toBe(404);
      expect((await call(`/context-variables/${variable.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/context-variables/${variable.id}/tag:abc`)).status).toBe(404);
    });

    it('deletes every variable carrying a tag', async () => {
      const tag = await created('/tags', { name: 'bulk' });
      const keep = await created('/context-variables', { name: 'keep_me' });
      await created('/context-variables', { name: 'drop_one', tags: [tag.id] });
      await created('/context-variables', { name: 'drop_two', tags: [tag.id] });
      expect((await call(`/context-variables?tag_id=${tag.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/context-variables?tag_id=${tag.id}`)).body).toEqual([]);
      expect((await call(`/context-variables/${keep.id}`)).status).toBe(200);
      expect((await call(`/context-variables/${keep.id}`, 'DELETE')).status).toBe(204);
    });

    it.each(
      titled([
        [
          { name: 'UserBalance', data_type: 'Number' },
          ['body', 'name'],
          /name must match \^\[a-z\]\[a-z0-9_\]\*\$ for a variable with a data_type.*Parlant-style names such as UserBalance/,
        ],
        [{ name: '1st', data_type: 'String' }, ['body', 'name'], /name must match/],
        [{ name: 'a'.repeat(51) }, ['body', 'name'], /name must be 1-50 characters/],
        [{ name: 'v', description: '' }, ['body', 'description'], /description must be 1-500 characters/],
        [{ name: 'v', description: 'd'.repeat(501) }, ['body', 'description'], /description must be 1-500 characters/],
        [{ name: 'v', extraction_prompt: '' }, ['body', 'extraction_prompt'], /extraction_prompt must be 1-1000 characters/],
        [{ name: 'v', extraction_prompt: 'p'.repeat(1001) }, ['body', 'extraction_prompt'], /extraction_prompt must be 1-1000 characters/],
        [{ name: 'v', data_type: 'Text' }, ['body', 'data_type'], /data_type must be one of/],
        [{ name: 'v', validation: { pattern: '([a-z' } }, ['body', 'validation', 'pattern'], /pattern must be a valid regular expression/],
        [
          { name: 'v', data_type: 'Number', validation: { min: 5, max: 1 } },
          ['body', 'validation', 'min'],
          /min must be less than or equal to max/,
        ],
        [
          { name: 'v', data_type: 'Number', validation: { min: 5, max: 1 } },
          ['body', 'validation', 'max'],
          /max must be greater than or equal to min/,
        ],
        [
          { name: 'v', validation: { min_length: 5, max_length: 1 } },
          ['body', 'validation', 'min_length'],
          /min_length must be less than or equal to max_length/,
        ],
        [
          { name: 'v', validation: { min_length: 5, max_length: 1 } },
          ['body', 'validation', 'max_length'],
          /max_length must be greater than or equal to min_length/,
        ],
        [{ name: 'v', data_type: 'Number', default_value: 'ten' }, ['body', 'default_value'], /default_value must be a Number/],
        [{ name: 'v', data_type: 'Boolean', default_value: 1 }, ['body', 'default_value'], /default_value must be a Boolean/],
        [{ name: 'v', data_type: 'Date', default_value: 'yesterday' }, ['body', 'default_value'], /default_value must be a Date/],
        [{ name: 'v', data_type: 'Array', default_value: {} }, ['body', 'default_value'], /default_value must be a Array/],
        [{ name: 'v', data_type: 'Object', default_value: [] }, ['body', 'default_value'], /default_value must be a Object/],
        [{ name: 'v', data_type: 'String', default_value: 5 }, ['body', 'default_value'], /default_value must be a String/],
        [
          { name: 'v', tool_id: { service_name: 'finance', tool_name: 'balance' } },
          ['body', 'tool_id'],
          /tool_id must reference an existing tool: service finance is not registered/,
        ],
        [{ name: 'v', freshness_rules: 'every day' }, ['body', 'freshness_rules'], /freshness_rules must be a cron expression/],
        [{ name: 'v', freshness_rules: '61 2 * * *' }, ['body', 'freshness_rules'], /freshness_rules must be a valid cron expression/],
        [{ name: 'v', tags: ['ghost'] }, ['body', 'tags', 0], /tags must reference existing tags/],
      ] as Rule[]),
    )('%s → 422, nothing stored', async (_title, body, loc, msg) => {
      await expectRejected('/context-variables', '/context-variables', 'POST', body, loc, msg);
    });

    it('names are unique, and a PATCH is checked against the stored definition', async () => {
      const variable = await created('/context-variables', { name: 'unique_name', data_type: 'Number', default_value: 3 });
      await expectRejected(
        '/context-variables',
        '/context-variables',
        'POST',
        { name: 'unique_name' },
        ['body', 'name'],
        /name must be unique/,
      );
      const changed = await call(`/context-variables/${variable.id}`, 'PATCH', { data_type: 'String' });
      expect(changed.status).toBe(422);
      expect(details(changed)).toContainEqual(
        expect.objectContaining({ loc: ['body', 'default_value'], msg: "default_value must be a String (the variable's data_type)" }),
      );
      expect((await call(`/context-variables/${variable.id}?include_values=false`)).body).toMatchObject({
        context_variable: { data_type: 'Number', default_value: 3 },
      });
      expect((await call(`/context-variables/${variable.id}`, 'DELETE')).status).toBe(204);
    });
  });

  describe('guidelines', () => {
    it('creates, reads, lists (by tag), updates with Parlant patch operations and deletes a guideline', async () => {
      const variable = await created('/context-variables', { name: 'account_number' });
      const tag = await created('/tags', { name: 'pricing' });
      const guideline = await created<{ id: string }>('/guidelines', {
        condition: 'when the customer asks about pricing',
        action: 'provide current pricing information',
        metadata: { key1: 'value1', key3: 'value3' },
        tags: [tag.id],
        priority: 100,
        required_context: ['account_number'],
        labels: ['vip'],
      });
      expect(guideline).toMatchObject({
        condition: 'when the customer asks about pricing',
        action: 'provide current pricing information',
        enabled: true,
        criticality: 'medium',
        priority: 100,
        tools: [],
        required_context: ['account_number'],
        tags: [tag.id],
        labels: ['vip'],
      });
      expect((await call(`/guidelines/${guideline.id}`)).body).toEqual({ guideline, relationships: [], tool_associations: [] });
      expect(((await call(`/guidelines?tag_id=${tag.id}`)).body as { id: string }[]).map((g) => g.id)).toEqual([guideline.id]);
      const patched = await call(`/guidelines/${guideline.id}`, 'PATCH', {
        action: 'provide pricing',
        enabled: false,
        priority: -5,
        metadata: { set: { key2: 'value2' }, unset: ['key3'] },
        tags: { remove: [tag.id] },
        labels: { upsert: ['priority'], remove: ['vip'] },
        criticality: 'high',
      });
      expect(patched.body).toEqual({
        guideline: {
          ...guideline,
          action: 'provide pricing',
          enabled: false,
          priority: -5,
          metadata: { key1: 'value1', key2: 'value2' },
          tags: [],
          labels: ['priority'],
          criticality: 'high',
        },
        relationships: [],
        tool_associations: [],
      });
      expect((await call(`/guidelines/${guideline.id}`)).body).toEqual(patched.body);
      expect((await call(`/guidelines?tag_id=${tag.id}`)).body).toEqual([]);
      expect((await call(`/guidelines/${guideline.id}`, 'DELETE')).status).toBe(204);
      expect((await call(`/guidelines/${guideline.id}`)).status).toBe(404);
      expect((await call(`/guidelines/${guideline.id}`, 'PATCH', { enabled: true })).status).toBe(404);
      expect((await call(`/context-variables/${variable.id}`, 'DELETE')).status).toBe(204);
    });

    it.each(
      titled([
        [{ condition: '' }, ['body', 'condition'], /condition must be 1-1000 characters/],
        [{ condition: 'c'.repeat(1001) }, ['body', 'condition'], /condition must be 1-1000 characters/],
        [{ action: 'a' }, ['body', 'condition'], /condition must be 1-1000 characters/],
        [{ condition: 'c', action: '' }, ['body', 'action'], /action must be 1-2000 characters/],
        [{ condition: 'c', action: 'a'.repeat(2001) }, ['body', 'action'], /action must be 1-2000 characters/],
        [{ condition: 'c', priority: 1001 }, ['body', 'priority'], /priority must be an integer from -1000 to 1000/],
        [{ condition: 'c', priority: -1001 }, ['body', 'priority'], /priority must be an integer from -1000 to 1000/],
        [{ condition: 'c', priority: 1.5 }, ['body', 'priority'], /priority must be an integer from -1000 to 1000/],
        [
          { condition: 'c', tools: ['check_order'] },
          ['body', 'tools', 0],
          /tools must name tools defined on the agent: check_order is not defined/,
        ],
        [
          { condition: 'c', required_context: ['no_such_variable'] },
          ['body', 'required_context', 0],
          /required_context must name a defined context variable: no_such_variable is not defined/,
        ],
        [{ condition: 'c', journey_id: 'onboarding' }, ['body', 'journey_id'], /journey_id must reference an existing journey/],
        [{ condition: 'c', journey_step: 'welcome' }, ['body', 'journey_step'], /journey_step requires journey_id/],
        [{ condition: 'c', criticality: 'extreme' }, ['body', 'criticality'], /criticality must be one of/],
        [{ condition: 'c', composition_mode: 'poetic' }, ['body', 'composition_mode'], /composition_mode must be one of/],
        [{ condition: 'c', tags: ['agent:ghost'] }, ['body', 'tags', 0], /tags must reference existing tags: agent ghost does not exist/],
        [{ condition: 'c', tags: ['journey:j1'] }, ['body', 'tags', 0], /journey j1 does not exist/],
      ] as Rule[]),
    )('%s → 422, nothing stored', async (_title, body, loc, msg) => {
      await expectRejected('/guidelines', '/guidelines', 'POST', body, loc, msg);
    });

    it.each([
      [{ condition: '' }, ['body', 'condition']],
      [{ priority: 2000 }, ['body', 'priority']],
      [{ tools: ['check_order'] }, ['body', 'tools', 0]],
      [{ tool_associations: { add: [{ service_name: 's', tool_name: 't' }] } }, ['body', 'tool_associations', 'add', 0]],
      [{ required_context: ['missing'] }, ['body', 'required_context', 0]],
      [{ journey_step: 'welcome' }, ['body', 'journey_step']],
      [{ tags: { add: ['ghost'] } }, ['body', 'tags', 'add', 0]],
    ])('PATCH %j → 422 naming the field, guideline unchanged', async (body, loc) => {
      const guideline = await created<{ id: string }>('/guidelines', { condition: 'when asked', action: 'answer' });
      const reply = await call(`/guidelines/${guideline.id}`, 'PATCH', body);
      expect(reply.status).toBe(422);
      expect(details(reply).map((d) => d.loc)).toContainEqual(loc);
      expect(((await call(`/guidelines/${guideline.id}`)).body as { guideline: unknown }).guideline).toEqual(guideline);
      expect((await call(`/guidelines/${guideline.id}`, 'DELETE')).status).toBe(204);
    });

    it('forAgent: untagged guidelines apply to every agent, agent:<id> and agent tags scope them; disabled ones are included', async () => {
      const team = await created('/tags', { name: 'team-a' });
      const agentA = await created('/agents', { name: 'A', tags: [team.id] });
      const agentB = await created('/agents', { name: 'B' });
      const everyone = await created('/guidelines', { condition: 'always', priority: 1 });
      const disabled = await created('/guidelines', { condition: 'never mind', enabled: false });
      const onlyA = await created('/guidelines', { condition: 'for A', tags: [`agent:${agentA.id}`], priority: 10 });
      const onlyB = await created('/guidelines', { condition: 'for B', tags: [`agent:${agentB.id}`] });
      const teamA = await created('/guidelines', { condition: 'for team A', tags: [team.id], priority: 5 });
      const mine = new Set([everyone.id, disabled.id, onlyA.id, onlyB.id, teamA.id]);
      const repository = app.get(GuidelinesRepository);
      const scoped = async (agentId: string): Promise<string[]> =>
        (await repository.forAgent(agentId)).map((g) => g.id).filter((id) => mine.has(id));
      expect(await scoped(agentA.id)).toEqual([onlyA.id, teamA.id, everyone.id, disabled.id]);
      expect(await scoped(agentB.id)).toEqual([everyone.id, disabled.id, onlyB.id]);
      expect(((await call(`/guidelines?tag_id=agent:${agentA.id}`)).body as { id: string }[]).map((g) => g.id)).toEqual([onlyA.id]);
    });
  });
});
