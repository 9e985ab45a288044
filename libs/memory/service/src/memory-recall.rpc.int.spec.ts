import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Global, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MEMORY_RECALL_SUBJECT, type RecallResponseV1 } from '@tenet/contracts';
import { SqliteEventStore } from '@tenet/event-store';
import { InProcessMessageBus, RemoteHandlerError, TenetTransport } from '@tenet/messaging';
import { loadConfig } from '@tenet/config';
import { EVENT_STORE, PLATFORM_CONFIG, TENET_CONFIG } from '@tenet/platform-runtime';
import { CustomerMemoryStore } from './customer-memory.store.js';
import { KnowledgeService } from './knowledge.service.js';
import { MemoryModule } from './memory.module.js';

describe('memory recall over the bus (in-process bus, SQLite log and index)', () => {
  let dir: string;
  let app: INestApplication;
  let bus: InProcessMessageBus;
  let events: SqliteEventStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-recall-'));
    events = SqliteEventStore.open({ dataDir: dir });
    // The stream the memory store's durable consumer (facts_extracted) reads, as the platform declares it.
    bus = new InProcessMessageBus({ streams: [{ name: 'TENET_V1', subjects: ['tenet.v1.>'] }] });
    @Global()
    @Module({
      providers: [
        { provide: EVENT_STORE, useValue: events },
        { provide: PLATFORM_CONFIG, useValue: { dataDir: dir } },
        { provide: TENET_CONFIG, useValue: loadConfig('memory-store', {}) },
      ],
      exports: [EVENT_STORE, PLATFORM_CONFIG, TENET_CONFIG],
    })
    class FakePlatformTokens {}
    @Module({ imports: [FakePlatformTokens, MemoryModule] })
    class Host {}
    app = await NestFactory.create(Host, { logger: false });
    app.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName: 'memory-store' }) });
    await app.startAllMicroservices();
    await app.init();
    await app.get(KnowledgeService).ingest({
      sourceId: 'help',
      title: 'Help',
      url: 'https://shop.example/help',
      format: 'markdown',
      content: `# Returns\nRefunds within 30 days of delivery.\n\n# Shipping\nDelivery takes 3 to 5 working days. ${'Parcels are tracked from the warehouse to your door. '.repeat(6)}`,
    });
    await app.get(CustomerMemoryStore).record('cust-1', {
      subject: 'customer',
      predicate: 'preferred_language',
      object: 'French',
      confidence: 0.9,
      source: { kind: 'operator' },
    });
  });

  afterEach(async () => {
    await app.close();
    await bus.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers facts and the relevant chunks with their sources', async () => {
    const reply = await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, {
      agent_id: 'a1',
      customer_id: 'cust-1',
      message: 'can I get a refund?',
    });
    expect(reply.facts.map((f) => f.object)).toEqual(['French']);
    expect(reply.sources[0]).toMatchObject({
      source_id: 'help',
      title: 'Help',
      url: 'https://shop.example/help',
      heading: 'Returns',
      chunk_text: 'Refunds within 30 days of delivery.',
    });
    expect(reply.truncated).toBe(false);
    expect(reply.estimated_tokens).toBeGreaterThan(0);
  });

  it('stays within max_tokens and says it left something out', async () => {
    const reply = await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, {
      agent_id: 'a1',
      customer_id: 'cust-1',
      message: 'refund delivery',
      max_tokens: 50,
      threshold: 0,
    });
    expect(reply.estimated_tokens).toBeLessThanOrEqual(50);
    const full = await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, {
      agent_id: 'a1',
      customer_id: 'cust-1',
      message: 'refund delivery',
      threshold: 0,
    });
    expect(full.sources.length).toBe(2);
    expect(reply.sources.length + reply.facts.length).toBeLessThan(full.sources.length + full.facts.length);
    expect(reply.truncated).toBe(true);
  });

  it("recalls only the caller's workspace: two workspaces with the same agent tag and untagged sources never see each other's", async () => {
    const knowledge = app.get(KnowledgeService);
    for (const workspaceId of ['ws-a', 'ws-b']) {
      await knowledge.ingest({
        sourceId: `${workspaceId}-tagged`,
        title: `${workspaceId} tagged`,
        format: 'markdown',
        content: `# Warranty\nThe ${workspaceId} warranty covers two years.`,
        agentIds: ['support'],
        workspaceId,
      });
      await knowledge.ingest({
        sourceId: `${workspaceId}-untagged`,
        title: `${workspaceId} untagged`,
        format: 'markdown',
        content: `# Warranty claims\nFile a ${workspaceId} warranty claim online.`,
        workspaceId,
      });
    }
    const recalled = async (workspaceId: string): Promise<string[]> =>
      (
        await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, {
          agent_id: 'support',
          workspace_id: workspaceId,
          message: 'warranty claim',
          max_results: 10,
          threshold: 0,
        })
      ).sources
        .map((s) => s.source_id)
        .sort();
    expect(await recalled('ws-a')).toEqual(['ws-a-tagged', 'ws-a-untagged']);
    expect(await recalled('ws-b')).toEqual(['ws-b-tagged', 'ws-b-untagged']);
    // The default workspace's untagged help source, and neither of the others.
    expect(await recalled('default')).toEqual(['help']);
    // Without a workspace (a caller without workspaces) the agent tag alone scopes, as before.
    const unscoped = await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, {
      agent_id: 'support',
      message: 'warranty claim',
      max_results: 10,
      threshold: 0,
    });
    expect(unscoped.sources.map((s) => s.source_id)).toEqual(expect.arrayContaining(['ws-a-tagged', 'ws-b-tagged']));
  });

  it('answers facts only for a blank message', async () => {
    const reply = await bus.request<RecallResponseV1>(MEMORY_RECALL_SUBJECT, { agent_id: 'a1', customer_id: 'cust-1', message: '   ' });
    expect(reply).toMatchObject({ facts: [{ object: 'French' }], sources: [] });
  });

  it('refuses a request that breaks the contract', async () => {
    const error = await bus.request(MEMORY_RECALL_SUBJECT, { agent_id: 'a1', message: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteHandlerError);
    expect((error as RemoteHandlerError).remoteCode).toBe('CONTRACT.INVALID');
    expect((error as Error).message).toContain('/message');
  });
  it('records extracted facts from the durable facts_extracted event once, however often it is delivered', async () => {
    const event = {
      id: '7c1d5a3e-0000-4000-8000-000000000001',
      type: 'memory.facts_extracted',
      version: 1,
      stream: 'context-extraction:cust-2',
      offset: 0,
      position: 1,
      occurred_at: '2026-11-23T10:00:00.000Z',
      data: {
        customerId: 'cust-2',
        sessionId: 's1',
        sourceMessageId: 'm1',
        extractedAt: '2026-11-23T10:00:00.000Z',
        facts: [{ factId: 'x-m1-0', subject: 'customer', predicate: 'address', object: 'Lyon', confidence: 0.75 }],
      },
    };
    await bus.publish('tenet.v1.memory.cust-2.facts_extracted', event, { msgId: 'first' });
    await bus.publish('tenet.v1.memory.cust-2.facts_extracted', event, { msgId: 'redelivered' });
    const memory = app.get(CustomerMemoryStore);
    for (let i = 0; i < 100 && (await memory.facts('cust-2')).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    expect((await memory.facts('cust-2')).map((f) => [f.factId, f.object, f.source])).toEqual([
      ['x-m1-0', 'Lyon', { kind: 'conversation', sessionId: 's1', messageId: 'm1' }],
    ]);
    expect((await events.readStream('customer-memory:cust-2')).filter((e) => e.type === 'FactRecorded')).toHaveLength(1);
  });
});
