import { randomUUID } from 'node:crypto';
import { appendTogether, type EventStore, type NewEvent, type ReadStreamOptions, type StoredEvent } from '../event-store.port.js';

/**
 * One test run's storage (a temp file, a database) and the way to open handles on it. `open()` may be
 * called several times: two handles are two writers (two connections), and after every handle is closed,
 * `open()` again is a restart.
 */
export interface EventStoreHarness {
  open(): Promise<EventStore>;
  /** Removes the storage. The suite has closed every handle it opened before calling this. */
  dispose(): Promise<void>;
}

export interface EventStoreCapabilities {
  /** The storage outlives its handles: close everything, open again, and the log is all there. */
  survivesRestart: boolean;
  /** Per-test timeout for the 2 × 500 concurrent-append test (remote databases need longer). */
  concurrencyTimeoutMs?: number;
}

const stream = (label: string): string => `${label}-${randomUUID()}`;
const event = (type: string, data: unknown = {}, extra: Partial<NewEvent> = {}): NewEvent => ({ type, data, ...extra });

function expectStrictlyIncreasing(values: number[]): void {
  values.slice(1).forEach((value, index) => expect(value).toBeGreaterThan(values[index]!));
}

/**
 * The contract every EventStore adapter must meet (emmett's `testAggregateStream(factory)` pattern): run it
 * from each adapter's spec with a harness for that adapter.
 */
export function eventStoreConformance(
  name: string,
  createHarness: () => Promise<EventStoreHarness>,
  capabilities: EventStoreCapabilities,
): void {
  describe(`EventStore conformance: ${name}`, () => {
    let harness: EventStoreHarness;
    let handles: EventStore[];
    let store: EventStore;

    const open = async (): Promise<EventStore> => {
      const handle = await harness.open();
      handles.push(handle);
      return handle;
    };
    const closeAll = async (): Promise<void> => {
      await Promise.all(handles.map((handle) => handle.close()));
      handles = [];
    };

    beforeEach(async () => {
      handles = [];
      harness = await createHarness();
      store = await open();
    });

    afterEach(async () => {
      await closeAll();
      await harness.dispose();
    });

    describe('append and read', () => {
      it('appends a batch at offsets 0.. and reads it back exactly as the append returned it', async () => {
        const id = stream('session');
        const result = await store.append(id, [
          event('SessionStarted', { agentId: 'a-1' }, { id: `e-${randomUUID()}`, metadata: { correlationId: 'c-1' } }),
          event('MessageCreated', { text: 'hello' }),
        ]);

        expect(result.nextExpectedVersion).toBe(1);
        expect(result.events.map((e) => [e.streamId, e.offset, e.type])).toEqual([
          [id, 0, 'SessionStarted'],
          [id, 1, 'MessageCreated'],
        ]);
        expect(result.lastPosition).toBe(result.events[1]!.position);
        expect(result.events[1]!.position).toBeGreaterThan(result.events[0]!.position);
        expect(result.events[0]!.metadata).toEqual({ correlationId: 'c-1' });
        expect(result.events[1]!.metadata).toEqual({});
        expect(result.events[1]!.id).toEqual(expect.any(String));
        expect(result.events[1]!.id).not.toBe(result.events[0]!.id);
        expect(new Date(result.events[0]!.recordedAt).toISOString()).toBe(result.events[0]!.recordedAt);

        expect(await store.readStream(id)).toEqual(result.events);
        expect(await store.streamVersion(id)).toBe(1);
      });

      it('continues a stream where it ended and keeps streams apart', async () => {
        const [a, b] = [stream('a'), stream('b')];
        await store.append(a, [event('A0')]);
        await store.append(b, [event('B0')]);
        const second = await store.append(a, [event('A1'), event('A2')]);

        expect(second.events.map((e) => e.offset)).toEqual([1, 2]);
        expect((await store.readStream(a)).map((e) => e.type)).toEqual(['A0', 'A1', 'A2']);
        expect((await store.readStream(b)).map((e) => e.type)).toEqual(['B0']);
      });

      it('stores data and metadata as JSON values, round-tripping them unchanged', async () => {
        const id = stream('json');
        const values: unknown[] = [
          { nested: { list: [1, 'two', { three: 3 }], empty: {}, nothing: null }, unicode: 'ünïcødé ✓ 🚀', big: 2 ** 52, negative: -1.5 },
          'a plain string',
          42,
          null,
          [],
          {},
        ];
        await store.append(
          id,
          values.map((data, index) => event(`T${index}`, data, { metadata: { index, tags: ['x'] } })),
        );

        const read = await store.readStream(id);
        expect(read.map((e) => e.data)).toEqual(values);
        expect(read.map((e) => e.metadata)).toEqual(values.map((_, index) => ({ index, tags: ['x'] })));
      });

      it('reads a stream from an offset with a limit', async () => {
        const id = stream('range');
        await store.append(
          id,
          Array.from({ length: 10 }, (_, i) => event(`E${i}`)),
        );

        expect((await store.readStream(id, { fromOffset: 3, limit: 4 })).map((e) => e.offset)).toEqual([3, 4, 5, 6]);
        expect((await store.readStream(id, { fromOffset: 8 })).map((e) => e.offset)).toEqual([8, 9]);
        expect((await store.readStream(id, { limit: 2 })).map((e) => e.offset)).toEqual([0, 1]);
        expect(await store.readStream(id, { fromOffset: 10 })).toEqual([]);
        expect(await store.readStream(id, { limit: 0 })).toEqual([]);
      });

      it('reports an unknown stream as version -1 with no events', async () => {
        const id = stream('missing');
        expect(await store.streamVersion(id)).toBe(-1);
        expect(await store.readStream(id)).toEqual([]);
      });
    });

    // Adapters may answer reads of recently used streams from memory (the SQLite store's tail cache): a read must
    // never tell the difference, whatever this handle or another one wrote since.
    describe('repeated reads of a stream (caches must stay exact)', () => {
      const mixed = (n: number): NewEvent[] =>
        Array.from({ length: n }, (_, i) => event(['message', 'status', 'tool'][i % 3]!, { i }, { metadata: { i } }));
      const shapes: ReadStreamOptions[] = [
        {},
        { fromOffset: 0 },
        { fromOffset: 5 },
        { fromOffset: 5, limit: 3 },
        { fromOffset: 17 },
        { fromOffset: 18 },
        { fromOffset: 40 },
        { limit: 0 },
        { types: ['status'] },
        { types: ['status', 'tool'], fromOffset: 7 },
        { types: ['message'], fromOffset: 3, limit: 2 },
        { types: ['missing'] },
        { types: [] },
      ];

      it('reads its own appends at once on a stream it has read before, with the new version', async () => {
        const id = stream('warm');
        expect(await store.readStream(id)).toEqual([]);
        expect(await store.streamVersion(id)).toBe(-1);
        const first = (await store.append(id, [event('A', { n: 0 })])).events;
        expect(await store.readStream(id)).toEqual(first);
        const second = (await store.append(id, [event('B', { n: 1 }), event('C', { n: 2 })], { expectedVersion: 0 })).events;
        expect(await store.readStream(id, { fromOffset: 1 })).toEqual(second);
        expect(await store.readStream(id)).toEqual([...first, ...second]);
        expect(await store.streamVersion(id)).toBe(2);
        await expect(store.append(id, [event('D')], { expectedVersion: 1 })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          actual: 2,
        });
        expect(await store.streamVersion(id)).toBe(2);
      });

      it('answers every offset, limit and type filter on a read-before stream exactly', async () => {
        const id = stream('shapes');
        const all = (await store.append(id, mixed(12))).events;
        await store.readStream(id);
        all.push(...(await store.append(id, mixed(6))).events);
        const expected = ({ fromOffset = 0, limit, types }: ReadStreamOptions): StoredEvent[] =>
          all.filter((e) => e.offset >= fromOffset && (types === undefined || types.includes(e.type))).slice(0, limit);
        for (const pass of ['first', 'again']) {
          for (const shape of shapes)
            expect({ pass, shape, events: await store.readStream(id, shape) }).toEqual({ pass, shape, events: expected(shape) });
        }
        expect(await store.streamVersion(id)).toBe(17);
      });

      it("sees another handle's appends on a stream it has read before, and conflicts with them", async () => {
        const id = stream('shared');
        await store.append(id, mixed(3));
        expect(await store.readStream(id, { fromOffset: 3 })).toEqual([]);
        const other = await open();
        const theirs = (await other.append(id, [event('status', { by: 'other' })], { expectedVersion: 2 })).events;
        expect(await store.readStream(id, { fromOffset: 3 })).toEqual(theirs);
        expect(await store.streamVersion(id)).toBe(3);
        await expect(store.append(id, [event('A')], { expectedVersion: 2 })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          actual: 3,
        });
        const mine = (await store.append(id, [event('A')], { expectedVersion: 3 })).events;
        expect(await other.readStream(id, { fromOffset: 3 })).toEqual([...theirs, ...mine]);
        expect(await store.readStream(id, { fromOffset: 3 })).toEqual([...theirs, ...mine]);
      });

      it('returns events a caller cannot change for the next reader', async () => {
        const id = stream('mutable');
        await store.append(id, [event('A', { list: [1] }, { metadata: { tag: 'x' } })]);
        const [read] = await store.readStream(id);
        (read!.data as { list: number[] }).list.push(2);
        read!.metadata['tag'] = 'changed';
        const [again] = await store.readStream(id);
        expect(again!.data).toEqual({ list: [1] });
        expect(again!.metadata).toEqual({ tag: 'x' });
      });
    });

    describe('expected version', () => {
      it('appends when the stream is at the expected version', async () => {
        const id = stream('ev');
        await store.append(id, [event('A')], { expectedVersion: 'no_stream' });
        await store.append(id, [event('B')], { expectedVersion: 0 });
        const third = await store.append(id, [event('C')], { expectedVersion: 1 });
        expect(third.nextExpectedVersion).toBe(2);
        const other = stream('ev-minus-one');
        expect((await store.append(other, [event('A')], { expectedVersion: -1 })).nextExpectedVersion).toBe(0);
      });

      it('appends several batches together (appendTogether): in order, each at its expected version, one result each', async () => {
        const a = stream('together-a');
        const b = stream('together-b');
        await store.append(b, [event('B0')]);
        const results = await appendTogether(store, [
          { streamId: a, events: [event('A0')], expectedVersion: 'no_stream' },
          { streamId: b, events: [event('B1'), event('B2')], expectedVersion: 0 },
          { streamId: a, events: [event('A1')], expectedVersion: 0 },
        ]);
        expect(results.map((r) => r.nextExpectedVersion)).toEqual([0, 2, 1]);
        expectStrictlyIncreasing(results.map((r) => r.lastPosition));
        expect((await store.readStream(a)).map((e) => e.type)).toEqual(['A0', 'A1']);
        expect((await store.readStream(b)).map((e) => e.type)).toEqual(['B0', 'B1', 'B2']);
        await expect(appendTogether(store, [{ streamId: b, events: [event('X')], expectedVersion: 0 }])).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
        });
      });

      it('rejects a stale version with ConcurrencyError carrying the actual version, and writes nothing', async () => {
        const id = stream('stale');
        await store.append(id, [event('A'), event('B')]);
        const before = await store.readAll();

        await expect(store.append(id, [event('C')], { expectedVersion: 0 })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          streamId: id,
          expected: 0,
          actual: 1,
        });
        await expect(store.append(id, [event('C')], { expectedVersion: 5 })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          expected: 5,
          actual: 1,
        });
        await expect(store.append(id, [event('C')], { expectedVersion: 'no_stream' })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          expected: 'no_stream',
          actual: 1,
        });
        const missing = stream('missing');
        await expect(store.append(missing, [event('A')], { expectedVersion: 0 })).rejects.toMatchObject({
          code: 'EVENT_LOG.CONCURRENCY',
          actual: -1,
        });

        expect(await store.streamVersion(id)).toBe(1);
        expect(await store.streamVersion(missing)).toBe(-1);
        expect(await store.readAll()).toEqual(before);
      });

      it("appends wherever the stream ends with 'any' (the default)", async () => {
        const id = stream('any');
        await store.append(id, [event('A')], { expectedVersion: 'any' });
        expect((await store.append(id, [event('B')])).nextExpectedVersion).toBe(1);
      });

      it('lets exactly one of two writers win a race for the same expected version', async () => {
        const second = await open();
        const id = stream('race');
        await store.append(id, [event('A')]);

        const outcomes = await Promise.allSettled([
          store.append(id, [event('B1')], { expectedVersion: 0 }),
          second.append(id, [event('B2')], { expectedVersion: 0 }),
        ]);

        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(rejected).toHaveLength(1);
        expect(rejected[0]!.reason).toMatchObject({ code: 'EVENT_LOG.CONCURRENCY', expected: 0, actual: 1 });
        expect((await store.readStream(id)).map((e) => e.offset)).toEqual([0, 1]);
      });
    });

    describe('atomicity and validation', () => {
      it('writes none of a batch when one of its events clashes with the log (duplicate event id)', async () => {
        const taken = `taken-${randomUUID()}`;
        await store.append(stream('owner'), [event('Owner', {}, { id: taken })]);
        const before = await store.readAll();
        const id = stream('atomic');

        await expect(store.append(id, [event('A'), event('B'), event('C', {}, { id: taken })])).rejects.toMatchObject({
          code: 'EVENT_LOG.INVALID_EVENT',
          field: 'events[2].id',
        });

        expect(await store.streamVersion(id)).toBe(-1);
        expect(await store.readStream(id)).toEqual([]);
        expect(await store.readAll()).toEqual(before);
        // The failed attempt left nothing behind that would shift the next append.
        expect((await store.append(id, [event('A')])).events[0]!.offset).toBe(0);
      });

      const circular: Record<string, unknown> = {};
      circular['self'] = circular;
      const invalid: Array<[string, () => [string, NewEvent[], { expectedVersion?: unknown }?]]> = [
        ['an empty stream id', () => ['', [event('A')]]],
        ['an empty batch', () => [stream('s'), []]],
        ['an empty type', () => [stream('s'), [event('')]]],
        ['a type longer than 200 characters', () => [stream('s'), [event('T'.repeat(201))]]],
        ['data that is undefined', () => [stream('s'), [{ type: 'A', data: undefined }]]],
        ['data with a BigInt', () => [stream('s'), [event('A', { amount: 10n })]]],
        ['circular data', () => [stream('s'), [event('A', circular)]]],
        ['metadata that is an array', () => [stream('s'), [event('A', {}, { metadata: [] as unknown as Record<string, unknown> })]]],
        ['an empty event id', () => [stream('s'), [event('A', {}, { id: '' })]]],
        ['a duplicate event id inside the batch', () => [stream('s'), [event('A', {}, { id: 'dup' }), event('B', {}, { id: 'dup' })]]],
        ['an expected version below -1', () => [stream('s'), [event('A')], { expectedVersion: -2 }]],
        ['a fractional expected version', () => [stream('s'), [event('A')], { expectedVersion: 1.5 }]],
        ['an unknown expected version keyword', () => [stream('s'), [event('A')], { expectedVersion: 'latest' }]],
      ];
      const fields: Record<string, string> = {
        'an empty stream id': 'streamId',
        'an empty batch': 'events',
        'an empty type': 'events[0].type',
        'a type longer than 200 characters': 'events[0].type',
        'data that is undefined': 'events[0].data',
        'data with a BigInt': 'events[0].data',
        'circular data': 'events[0].data',
        'metadata that is an array': 'events[0].metadata',
        'an empty event id': 'events[0].id',
        'a duplicate event id inside the batch': 'events[1].id',
        'an expected version below -1': 'expectedVersion',
        'a fractional expected version': 'expectedVersion',
        'an unknown expected version keyword': 'expectedVersion',
      };

      it.each(invalid)('rejects %s with InvalidEventError naming the field, writing nothing', async (label, input) => {
        const [streamId, events, options] = input();
        const before = await store.readAll();

        const failure = store.append(streamId, events, options as never);

        await expect(failure).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_EVENT', field: fields[label] });
        await expect(failure).rejects.toThrow(new RegExp(`^${fields[label]!.replace(/[[\]]/g, '\\$&')}: .+`));
        expect(await store.readAll()).toEqual(before);
      });

      it('rejects out-of-range read arguments', async () => {
        await expect(store.readStream(stream('s'), { fromOffset: -1 })).rejects.toMatchObject({
          code: 'EVENT_LOG.INVALID_REQUEST',
          field: 'fromOffset',
        });
        await expect(store.readAll({ afterPosition: -1 })).rejects.toMatchObject({
          code: 'EVENT_LOG.INVALID_REQUEST',
          field: 'afterPosition',
        });
        await expect(store.readAll({ limit: 1.5 })).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_REQUEST', field: 'limit' });
      });
    });

    describe('concurrent writers', () => {
      it(
        'gives 2 writers x 500 concurrent appends to one stream offsets 0..999 exactly, in position order',
        async () => {
          const second = await open();
          const id = stream('contended');
          const appendsFrom = (writer: EventStore, label: string): Array<Promise<StoredEvent[]>> =>
            Array.from({ length: 500 }, (_, i) =>
              writer.append(id, [event('Appended', { writer: label, i })], { expectedVersion: 'any' }).then((r) => r.events),
            );

          const results = (await Promise.all([...appendsFrom(store, 'first'), ...appendsFrom(second, 'second')])).flat();

          expect(results).toHaveLength(1000);
          expect(results.map((e) => e.offset).sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
          const read = await second.readStream(id);
          expect(read.map((e) => e.offset)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
          expectStrictlyIncreasing(read.map((e) => e.position));
          expect(new Set(read.map((e) => e.id)).size).toBe(1000);
          expect(read.filter((e) => (e.data as { writer: string }).writer === 'first')).toHaveLength(500);
          expect(await store.streamVersion(id)).toBe(999);
        },
        capabilities.concurrencyTimeoutMs ?? 30_000,
      );
    });

    describe('global order', () => {
      it('orders all streams by strictly increasing position, each stream in offset order', async () => {
        const second = await open();
        const streams = [stream('g1'), stream('g2'), stream('g3')];
        const start = (await store.readAll()).length;
        const lastPositions: number[] = [];
        for (let round = 0; round < 4; round++) {
          for (const [index, id] of streams.entries()) {
            const writer = index % 2 === 0 ? store : second;
            lastPositions.push((await writer.append(id, [event(`R${round}a`), event(`R${round}b`)])).lastPosition);
          }
        }
        expectStrictlyIncreasing(lastPositions);

        const all = (await second.readAll()).slice(start);
        expect(all).toHaveLength(24);
        expectStrictlyIncreasing(all.map((e) => e.position));
        for (const id of streams) {
          expect(all.filter((e) => e.streamId === id).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
          expect(all.filter((e) => e.streamId === id)).toEqual(await store.readStream(id));
        }
      });

      it('reads after a position with a limit, paging through the whole log without gaps or repeats', async () => {
        for (let i = 0; i < 7; i++) await store.append(stream('page'), [event('P', { i }), event('Q', { i })]);
        const everything = await store.readAll();
        const pivot = everything[3]!.position;

        const after = await store.readAll({ afterPosition: pivot, limit: 5 });
        expect(after).toEqual(everything.filter((e) => e.position > pivot).slice(0, 5));
        expect(await store.readAll({ afterPosition: everything[everything.length - 1]!.position })).toEqual([]);
        expect(await store.readAll({ limit: 0 })).toEqual([]);

        const paged: StoredEvent[] = [];
        for (let cursor = 0; ;) {
          const page = await store.readAll({ afterPosition: cursor, limit: 3 });
          if (page.length === 0) break;
          paged.push(...page);
          cursor = page[page.length - 1]!.position;
        }
        expect(paged).toEqual(everything);
      });
    });

    describe('filtered reads (category, types)', () => {
      it('reads one category in global order, from a position, with a limit counted after the filter', async () => {
        const tag = randomUUID().replace(/-/g, '').slice(0, 12);
        const [agentCat, sessionCat] = [`ag${tag}-`, `se${tag}-`];
        const written: StoredEvent[] = [];
        for (let i = 0; i < 5; i++) {
          written.push(...(await store.append(`${agentCat}${i % 2}`, [event('AgentCreated', { i })])).events);
          await store.append(`${sessionCat}${i}`, [event('message', { i }), event('status', { i })]);
          // Same leading letters, no dash after them: not in the category.
          await store.append(`${agentCat.slice(0, -1)}x${i}`, [event('AgentCreated', { i })]);
        }

        const agents = await store.readAll({ category: agentCat });
        expect(agents).toEqual(written);
        expectStrictlyIncreasing(agents.map((e) => e.position));
        expect(await store.readAll({ category: agentCat, afterPosition: written[1]!.position, limit: 2 })).toEqual(written.slice(2, 4));
        expect(await store.readAll({ category: agentCat, afterPosition: written[4]!.position })).toEqual([]);
        expect((await store.readAll({ category: sessionCat })).map((e) => e.type)).toEqual(
          Array.from({ length: 5 }, () => ['message', 'status']).flat(),
        );
        // A second handle (another connection, another process) sees the same category.
        const second = await open();
        expect(await second.readAll({ category: agentCat })).toEqual(written);
      });

      it('reads several categories at once in global order; an empty list reads nothing', async () => {
        const tag = randomUUID().replace(/-/g, '').slice(0, 12);
        const [a, b, other] = [`ca${tag}-`, `cb${tag}-`, `cc${tag}-`];
        const wanted: StoredEvent[] = [];
        for (let i = 0; i < 3; i++) {
          wanted.push(...(await store.append(`${a}${i}`, [event('Created', { i })])).events);
          await store.append(`${other}${i}`, [event('Created', { i })]);
          wanted.push(...(await store.append(`${b}${i}`, [event('Created', { i }), event('Updated', { i })])).events);
        }

        const both = await store.readAll({ category: [b, a] });
        expect(both).toEqual(wanted);
        expectStrictlyIncreasing(both.map((e) => e.position));
        expect(await store.readAll({ category: [a, b], afterPosition: wanted[1]!.position, limit: 2 })).toEqual(wanted.slice(2, 4));
        expect(await store.readAll({ category: [a, b], types: ['Updated'] })).toEqual(wanted.filter((e) => e.type === 'Updated'));
        expect(await store.readAll({ category: [a] })).toEqual(wanted.filter((e) => e.streamId.startsWith(a)));
        expect(await store.readAll({ category: [] })).toEqual([]);
      });

      it('filters by type in readAll and readStream, keeping offsets and positions', async () => {
        const tag = randomUUID().replace(/-/g, '').slice(0, 12);
        const id = `ty${tag}-1`;
        const appended = (
          await store.append(id, [
            event('message', { n: 0 }),
            event('status', { n: 1 }),
            event('tool', { n: 2 }),
            event('status', { n: 3 }),
          ])
        ).events;

        expect(await store.readStream(id, { types: ['status'] })).toEqual([appended[1], appended[3]]);
        expect(await store.readStream(id, { types: ['status', 'tool'], fromOffset: 2 })).toEqual([appended[2], appended[3]]);
        expect(await store.readStream(id, { types: ['status'], limit: 1 })).toEqual([appended[1]]);
        expect(await store.readStream(id, { types: [] })).toEqual([]);
        expect(await store.readAll({ category: `ty${tag}-`, types: ['message', 'tool'] })).toEqual([appended[0], appended[2]]);
        const after = appended[0]!.position - 1;
        expect((await store.readAll({ afterPosition: after, types: ['status'] })).filter((e) => e.streamId === id)).toEqual([
          appended[1],
          appended[3],
        ]);
      });

      it('rejects a category that is not a prefix ending with its only dash, and types that are not strings', async () => {
        for (const category of ['', 'agent', 'a-b-', '-', ['agent-', 'session']]) {
          await expect(store.readAll({ category })).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_REQUEST', field: 'category' });
        }
        await expect(store.readAll({ types: [''] })).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_REQUEST', field: 'types' });
        await expect(store.readStream('s-1', { types: 'status' as unknown as string[] })).rejects.toMatchObject({
          code: 'EVENT_LOG.INVALID_REQUEST',
          field: 'types',
        });
      });
    });

    describe('checkpoints', () => {
      it('starts at 0, keeps the last saved position per name, and is shared between handles', async () => {
        const second = await open();
        const [relay, projection] = [`relay-${randomUUID()}`, `projection-${randomUUID()}`];
        expect(await store.loadCheckpoint(relay)).toBe(0);

        await store.saveCheckpoint(relay, 7);
        await store.saveCheckpoint(projection, 3);
        await store.saveCheckpoint(relay, 12);

        expect(await store.loadCheckpoint(relay)).toBe(12);
        expect(await second.loadCheckpoint(projection)).toBe(3);
      });

      it('rejects an empty name or a negative position', async () => {
        await expect(store.saveCheckpoint('', 1)).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_REQUEST', field: 'name' });
        await expect(store.saveCheckpoint('c', -1)).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_REQUEST', field: 'position' });
      });
    });

    describe('lifecycle', () => {
      it('rejects calls on a closed handle with EVENT_LOG.UNAVAILABLE', async () => {
        const handle = await open();
        await handle.close();
        await expect(handle.append(stream('closed'), [event('A')])).rejects.toMatchObject({ code: 'EVENT_LOG.UNAVAILABLE' });
        await expect(handle.readAll()).rejects.toMatchObject({ code: 'EVENT_LOG.UNAVAILABLE' });
      });

      (capabilities.survivesRestart ? it : it.skip)(
        'keeps everything across a restart and continues at the right offset and position',
        async () => {
          const id = stream('durable');
          const first = await store.append(id, [event('A', { n: 1 }), event('B', { n: 2 })]);
          await store.append(stream('other'), [event('X')]);
          await store.saveCheckpoint('relay', first.lastPosition);
          const before = await store.readAll();
          await closeAll();

          const reopened = await open();
          expect(await reopened.readAll()).toEqual(before);
          expect(await reopened.streamVersion(id)).toBe(1);
          expect(await reopened.loadCheckpoint('relay')).toBe(first.lastPosition);

          const next = await reopened.append(id, [event('C')], { expectedVersion: 1 });
          expect(next.events[0]!.offset).toBe(2);
          expect(next.lastPosition).toBeGreaterThan(before[before.length - 1]!.position);
        },
      );
    });
  });
}
