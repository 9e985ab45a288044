import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@tenet/event-store';
import { CustomerMemoryStore, customerMemoryStream } from './customer-memory.store.js';

describe('CustomerMemoryStore (facts as events in the SQLite event log)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let clock: number;
  let store: CustomerMemoryStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-memory-'));
    events = SqliteEventStore.open({ dataDir: dir });
    clock = Date.parse('2026-11-23T10:00:00Z');
    store = new CustomerMemoryStore(events, () => new Date(clock));
  });
  afterEach(async () => {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const lives = (object: string, factId: string) => ({
    factId,
    subject: 'customer',
    predicate: 'lives_in',
    object,
    confidence: 0.8,
    source: { kind: 'operator' as const },
  });

  it('records, supersedes and answers now and at a past time, from the log', async () => {
    await store.record('c1', lives('Paris', 'f1'));
    clock += 60_000;
    await store.record('c1', lives('Lyon', 'f2'));
    expect((await store.facts('c1')).map((f) => f.object)).toEqual(['Lyon']);
    expect((await store.facts('c1', new Date('2026-11-23T10:00:30Z'))).map((f) => f.object)).toEqual(['Paris']);
    expect((await events.readStream(customerMemoryStream('c1'))).map((e) => e.type)).toEqual([
      'FactRecorded',
      'FactRecorded',
      'FactSuperseded',
    ]);
    expect(await store.facts('c2')).toEqual([]);
  });

  it('stamps the workspace it was given on the events (published under it; this log has no ownership index)', async () => {
    await store.record('c1', lives('Paris', 'f1'), { workspaceId: 'acme' });
    clock += 60_000;
    await store.record('c1', lives('Lyon', 'f2'), { workspaceId: 'acme' });
    await store.record('c2', lives('Rome', 'f3'));
    expect((await events.readStream(customerMemoryStream('c1'))).map((e) => e.metadata)).toEqual([
      { customerId: 'c1', workspace_id: 'acme' },
      { customerId: 'c1', workspace_id: 'acme' },
      { customerId: 'c1', workspace_id: 'acme' },
    ]);
    expect((await events.readStream(customerMemoryStream('c2')))[0]?.metadata).toEqual({ customerId: 'c2' });
  });

  it('forgets with a tombstone event and the fact is gone from every answer', async () => {
    await store.record('c1', lives('Paris', 'f1'));
    await store.forget('c1', 'f1', 'customer request');
    expect(await store.facts('c1')).toEqual([]);
    expect(await store.facts('c1', new Date(clock))).toEqual([]);
    expect((await events.readStream(customerMemoryStream('c1'))).at(-1)).toMatchObject({
      type: 'FactForgotten',
      data: { factId: 'f1', reason: 'customer request' },
    });
    await expect(store.forget('c1', 'nope')).rejects.toMatchObject({ code: 'MEMORY.FACT_NOT_FOUND' });
  });

  it('serialises concurrent contradicting facts: exactly one stays current', async () => {
    await store.record('c1', lives('Paris', 'f0'));
    await Promise.all([
      store.record('c1', lives('Lyon', 'f1')),
      store.record('c1', lives('Nice', 'f2')),
      store.record('c1', lives('Lille', 'f3')),
    ]);
    const current = await store.facts('c1');
    expect(current).toHaveLength(1);
    const stream = await events.readStream(customerMemoryStream('c1'));
    expect(stream.filter((e) => e.type === 'FactSuperseded')).toHaveLength(3);
  });
});
