import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import {
  AgentCreationDto,
  AgentUpdateDto,
  CannedResponseCreationDto,
  CannedResponseUpdateDto,
  CapabilityCreationDto,
  CapabilityUpdateDto,
  ContextVariableCreationDto,
  ContextVariableUpdateDto,
  CustomerCreationDto,
  CustomerUpdateDto,
  GuidelineCreationDto,
  GuidelineUpdateDto,
  JourneyCreationDto,
  JourneyUpdateDto,
  TagCreationDto,
  TagUpdateDto,
  TermCreationDto,
  TermUpdateDto,
} from '@tenet/catalog-data-access';
import { EventUpdateDto } from '../../libs/session/gateway/src/events/event-edits.http.controller.js';
import { EventCreationDto } from '../../libs/session/gateway/src/events/event.dto.js';
import { SessionCreationDto, SessionUpdateDto } from '../../libs/session/gateway/src/sessions/session.dto.js';
import { patchRulesOf } from '@tenet/platform-runtime/validation';
import { BindingCreationDto, BindingUpdateDto } from '../../libs/channels/service/src/bindings/binding.dto.js';
import { ChannelCreationDto, ChannelUpdateDto } from '../../libs/channels/service/src/channels/channel.dto.js';
import { IntentCreationDto, IntentUpdateDto } from '@tenet/intents-service';
import { generateSecretsKey } from '@tenet/secrets';
import { keyedHttp, type Reply } from './support/gateway-http.js';

type Dto = new () => object;

interface Resource {
  /** The collection route (read when the test runs: a session's events need the session). */
  path: string;
  /** The collection route as the OpenAPI document names it. */
  route: string;
  creation: Dto;
  update: Dto;
  /** A body POST accepts; each generated body changes one of its fields. */
  valid: () => Record<string, unknown>;
}

/**
 * The values a field's create rules are probed with, generated from its class-validator metadata: wrong types,
 * null, empties, and one past each bound the DTO declares (Length, Min/Max, ArrayMaxSize, IsIn).
 */
function probesOf(creation: Dto, property: string): unknown[] {
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(creation, '', true, false)
    .filter((m) => m.propertyName === property);
  const probes: unknown[] = [null, 42, -1.5, true, 'text', '', [], [42], [''], {}, { nested: null }];
  for (const rule of rules) {
    const [a, b] = (rule.constraints ?? []) as unknown[];
    const wrap = (value: unknown): unknown => (rule.each ? [value] : value);
    switch (rule.name) {
      case 'isLength':
        if (typeof a === 'number' && a > 0) probes.push(wrap('x'.repeat(a - 1)));
        if (typeof b === 'number') probes.push(wrap('x'.repeat(b + 1)));
        break;
      case 'min':
        if (typeof a === 'number') probes.push(wrap(a - 1));
        break;
      case 'max':
        if (typeof a === 'number') probes.push(wrap(a + 1));
        break;
      case 'arrayMaxSize':
        if (typeof a === 'number') probes.push(Array.from({ length: a + 1 }, (_, i) => `item ${i}`));
        break;
      case 'isIn':
        probes.push(wrap('not-one-of-them'));
        break;
      case 'isInt':
        probes.push(wrap(1.5), wrap(1e308));
        break;
      default:
    }
  }
  return probes;
}

const propertiesOf = (creation: Dto): string[] => [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(creation, '', true, false)
      .map((m) => m.propertyName),
  ),
];

/**
 * PATCH parity (ADR 0023), property-style: for every resource with a PATCH, every field value that POST refuses
 * is refused by PATCH too, and what is stored after all the probes still satisfies the create rules.
 */
describe('PATCH enforces the create rules on every resource', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let agentId = '';
  let sessionId = '';

  const http = keyedHttp(() => url);
  const call = (method: string, path: string, body?: unknown): Promise<Reply> => http(method, path, undefined, body);

  const resources: Resource[] = [
    { path: '/agents', route: '/agents', creation: AgentCreationDto, update: AgentUpdateDto, valid: () => ({ name: 'Probe agent' }) },
    {
      path: '/guidelines',
      route: '/guidelines',
      creation: GuidelineCreationDto,
      update: GuidelineUpdateDto,
      valid: () => ({ condition: 'the customer asks', action: 'answer' }),
    },
    {
      path: '/journeys',
      route: '/journeys',
      creation: JourneyCreationDto,
      update: JourneyUpdateDto,
      valid: () => ({ title: 'Probe journey', description: 'probing', conditions: ['the customer probes'] }),
    },
    {
      path: '/customers',
      route: '/customers',
      creation: CustomerCreationDto,
      update: CustomerUpdateDto,
      valid: () => ({ name: 'Probe customer' }),
    },
    {
      path: '/capabilities',
      route: '/capabilities',
      creation: CapabilityCreationDto,
      update: CapabilityUpdateDto,
      valid: () => ({ title: 'Refunds', description: 'refunds orders', signals: ['refund'] }),
    },
    {
      path: '/context-variables',
      route: '/context-variables',
      creation: ContextVariableCreationDto,
      update: ContextVariableUpdateDto,
      valid: () => ({ name: 'plan', description: 'the plan' }),
    },
    { path: '/sessions', route: '/sessions', creation: SessionCreationDto, update: SessionUpdateDto, valid: () => ({ agent_id: agentId }) },
    {
      path: '/terms',
      route: '/terms',
      creation: TermCreationDto,
      update: TermUpdateDto,
      valid: () => ({ name: 'SLA', description: 'service level agreement' }),
    },
    {
      path: '/canned_responses',
      route: '/canned_responses',
      creation: CannedResponseCreationDto,
      update: CannedResponseUpdateDto,
      valid: () => ({ value: 'Happy to help.' }),
    },
    {
      path: '/intents',
      route: '/intents',
      creation: IntentCreationDto,
      update: IntentUpdateDto,
      valid: () => ({ name: `intent_${Math.random().toString(36).slice(2, 10)}`, description: 'What the customer wants' }),
    },
    { path: '/tags', route: '/tags', creation: TagCreationDto, update: TagUpdateDto, valid: () => ({ name: 'probe' }) },
    {
      path: '/bindings',
      route: '/bindings',
      creation: BindingCreationDto,
      update: BindingUpdateDto,
      valid: () => ({ agent_id: agentId, channel: 'telegram' }),
    },
    {
      path: '/channels',
      route: '/channels',
      creation: ChannelCreationDto,
      update: ChannelUpdateDto,
      valid: () => ({
        kind: 'webhook',
        name: 'Probe hook',
        credentials: { signing_secret: 'x'.repeat(40) },
        settings: { outbound_url: 'https://probe.test/in' },
      }),
    },
    {
      get path() {
        return `/sessions/${sessionId}/events`;
      },
      route: '/sessions/{sessionId}/events',
      creation: EventCreationDto,
      update: EventUpdateDto,
      valid: () => ({ kind: 'custom', source: 'system', data: { probe: true } }),
    },
  ];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-patch-parity-'));
    // The channel gateway reads its sealing key from the process environment (channels.config.ts).
    process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
    ({ app, url } = await startAllInOne({
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'off',
    }));
    agentId = ((await call('POST', '/agents', { name: 'Session agent' })).body as { id: string }).id;
    sessionId = ((await call('POST', '/sessions', { agent_id: agentId })).body as { id: string }).id;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    delete process.env['TENET_SECRETS_KEY'];
    rmSync(dir, { recursive: true, force: true });
  });

  it('covers every PATCH route of the API, each with a create DTO its PATCH is held to', async () => {
    const doc = (await call('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
    };
    const patched = Object.entries(doc.paths)
      .filter(([path, operations]) => operations['patch'] && doc.paths[path.replace(/\/\{[^}]+\}$/, '')]?.['post'])
      .map(([path, operations]) => ({
        collection: path.replace(/\/\{[^}]+\}$/, ''),
        schema: operations['patch']!.requestBody?.content['application/json']?.schema.$ref?.split('/').pop(),
      }));
    expect(patched.map((p) => p.collection).sort()).toEqual(resources.map((r) => r.route).sort());
    for (const { collection, schema } of patched) {
      const resource = resources.find((r) => r.route === collection)!;
      expect(schema).toBe(resource.update.name);
      expect(patchRulesOf(resource.update)?.creation).toBe(resource.creation);
    }
  });

  it('the reported case: PATCH /capabilities/{id} {"signals": null} is a 422 naming signals, as on create, and nothing is stored', async () => {
    const capability = (await call('POST', '/capabilities', { title: 'Refunds', description: 'refunds orders', signals: ['refund'] }))
      .body as { id: string };
    const refused = await call('PATCH', `/capabilities/${capability.id}`, { signals: null });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toContainEqual(['body', 'signals']);
    expect(((await call('GET', `/capabilities/${capability.id}`)).body as { signals: unknown }).signals).toEqual(['refund']);
  });

  it.each(resources.map((r) => [r.route, r] as const))(
    '%s: what POST refuses, PATCH refuses; the stored resource keeps the create rules',
    async (_route, resource) => {
      const path = resource.path;
      const target = await call('POST', path, resource.valid());
      expect(target.status).toBe(201);
      const id = (target.body as { id: string }).id;
      const mismatches: string[] = [];
      const rules = patchRulesOf(resource.update)!;
      for (const property of propertiesOf(resource.creation).filter((p) => p !== 'id')) {
        for (const probe of probesOf(resource.creation, property)) {
          // Declared exceptions (in the PATCH DTO's PatchOf): a field whose PATCH form differs (`tags: {add, remove}`)
          // has its own rules, except that null is none of its forms; `null` on a field PATCH may clear is "remove".
          const ownForm = rules.differs.has(property) && probe !== null;
          const clears = rules.clears.has(property) && probe === null;
          const created = await call('POST', path, { ...resource.valid(), [property]: probe });
          if (created.status === 201) {
            await call('DELETE', `${path}/${(created.body as { id: string }).id}`);
            // Accepted by create: PATCH may take it (or refuse a PATCH form it does not use); either way the stored
            // resource is checked below.
            await call('PATCH', `${path}/${id}`, { [property]: probe });
            continue;
          }
          expect(created.status).toBeGreaterThanOrEqual(400);
          expect(created.status).toBeLessThan(500);
          const patched = await call('PATCH', `${path}/${id}`, { [property]: probe });
          if (ownForm || clears) continue;
          if (patched.status < 400 || patched.status >= 500)
            mismatches.push(
              `PATCH ${path}/{id} ${JSON.stringify({ [property]: probe }).slice(0, 120)} → ${patched.status} (POST → ${created.status})`,
            );
        }
      }
      expect(mismatches).toEqual([]);

      const read = (await call('GET', `${path}/${id}`)).body as Record<string, unknown>;
      // Parlant wraps some reads (`{guideline, connections}`, `{context_variable, key_value_pairs}`).
      const named = (o: unknown): o is Record<string, unknown> =>
        typeof o === 'object' && o !== null && !Array.isArray(o) && propertiesOf(resource.creation).some((p) => p in o && p !== 'id');
      const stored = named(read) ? read : (Object.values(read).find(named) ?? read);
      const asCreated = Object.fromEntries(
        propertiesOf(resource.creation)
          .filter((p) => p in stored && p !== 'id')
          .map((p) => [p, stored[p]]),
      );
      const broken = validateSync(plainToInstance(resource.creation, asCreated), { forbidUnknownValues: false }).map(
        (e) => `${e.property}: ${Object.values(e.constraints ?? {}).join('; ') || 'nested rule'}`,
      );
      expect(broken).toEqual([]);
    },
    240_000,
  );
});
