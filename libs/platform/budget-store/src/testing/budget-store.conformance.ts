import { randomUUID } from 'node:crypto';
import type { BudgetStore } from '../budget-store.port.js';

/** One test's storage (a Redis key prefix, or nothing) and how to open stores on it; two opens share counters. */
export interface BudgetStoreHarness {
  open(): Promise<BudgetStore>;
  dispose(): Promise<void>;
}

const DAY = '2026-11-26';

/**
 * The contract of every BudgetStore adapter, run from each adapter's spec. "Shared" checks open two stores on the
 * same storage, as two gateway or matcher processes would.
 */
export function budgetStoreConformance(
  name: string,
  createHarness: () => Promise<BudgetStoreHarness>,
  options: { sharedAcrossOpens: boolean },
): void {
  describe(`BudgetStore conformance: ${name}`, () => {
    let harness: BudgetStoreHarness;
    let stores: BudgetStore[];
    let store: BudgetStore;
    let key: string;
    const open = async (): Promise<BudgetStore> => {
      const opened = await harness.open();
      stores.push(opened);
      return opened;
    };
    const now = Date.parse('2026-11-26T10:00:00Z');
    const scope = (limit: number, estimate: number, periodId = DAY) => ({ key, periodId, limit, estimate });

    beforeEach(async () => {
      harness = await createHarness();
      stores = [];
      store = await open();
      key = `agent:a-${randomUUID().slice(0, 8)}:day:tokens`;
    });
    afterEach(async () => {
      for (const s of stores) await s.close();
      await harness.dispose();
    });

    it('reserves, settles what the call cost, and reads the used amount', async () => {
      expect(await store.reserve({ reservationId: 'r1', scopes: [scope(1000, 300)], ttlMs: 60_000, now })).toEqual({ outcome: 'reserved' });
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)).toEqual({ used: 0, reserved: 300 });
      expect(await store.settle('r1', [{ key, periodId: DAY, amount: 120 }])).toEqual([{ key, before: 0, after: 120 }]);
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)).toEqual({ used: 120, reserved: 0 });
    });

    it('settles exactly once per reservation id', async () => {
      await store.reserve({ reservationId: 'r1', scopes: [scope(1000, 100)], ttlMs: 60_000, now });
      await store.settle('r1', [{ key, periodId: DAY, amount: 50 }]);
      expect(await store.settle('r1', [{ key, periodId: DAY, amount: 50 }])).toEqual([]);
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)?.used).toBe(50);
    });

    it('refuses every call once the limit is spent, naming the scope', async () => {
      await store.reserve({ reservationId: 'r1', scopes: [scope(100, 10)], ttlMs: 60_000, now });
      await store.settle('r1', [{ key, periodId: DAY, amount: 100 }]);
      expect(await store.reserve({ reservationId: 'r2', scopes: [scope(100, 1)], ttlMs: 60_000, now })).toEqual({
        outcome: 'exhausted',
        key,
        used: 100,
        limit: 100,
      });
    });

    it('refuses a call whose estimate alone exceeds what is left, and makes a concurrent one wait for the room in flight', async () => {
      await store.reserve({ reservationId: 'r1', scopes: [scope(100, 10)], ttlMs: 60_000, now });
      await store.settle('r1', [{ key, periodId: DAY, amount: 50 }]);
      expect(await store.reserve({ reservationId: 'big', scopes: [scope(100, 51)], ttlMs: 60_000, now })).toEqual({
        outcome: 'exhausted',
        key,
        used: 50,
        limit: 100,
      });
      expect(await store.reserve({ reservationId: 'r2', scopes: [scope(100, 30)], ttlMs: 60_000, now })).toEqual({ outcome: 'reserved' });
      expect(await store.reserve({ reservationId: 'r3', scopes: [scope(100, 30)], ttlMs: 60_000, now })).toEqual({ outcome: 'wait', key });
      await store.settle('r2', [{ key, periodId: DAY, amount: 40 }]);
      expect(await store.reserve({ reservationId: 'r3', scopes: [scope(100, 30)], ttlMs: 60_000, now })).toMatchObject({
        outcome: 'exhausted',
        used: 90,
      });
    });

    it("a turn's hold does not count against its own calls, only against the others", async () => {
      expect(await store.reserve({ reservationId: 'turn-1', scopes: [scope(100, 80)], ttlMs: 60_000, now })).toEqual({
        outcome: 'reserved',
      });
      expect(await store.reserve({ reservationId: 'turn-2', scopes: [scope(100, 80)], ttlMs: 60_000, now })).toEqual({
        outcome: 'wait',
        key,
      });
      expect(await store.reserve({ reservationId: 'c1', scopes: [{ ...scope(100, 60), heldBy: 'turn-1' }], ttlMs: 60_000, now })).toEqual({
        outcome: 'reserved',
      });
      await store.settle('c1', [{ key, periodId: DAY, amount: 60 }]);
      expect(
        await store.reserve({ reservationId: 'c2', scopes: [{ ...scope(100, 41), heldBy: 'turn-1' }], ttlMs: 60_000, now }),
      ).toMatchObject({ outcome: 'exhausted', used: 60 });
      expect(await store.reserve({ reservationId: 'c3', scopes: [{ ...scope(100, 40), heldBy: 'turn-1' }], ttlMs: 60_000, now })).toEqual({
        outcome: 'reserved',
      });
      await store.release('turn-1', [key]);
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)).toEqual({ used: 60, reserved: 40 });
    });

    it('reserves on every scope or on none', async () => {
      const other = `${key}-other`;
      await store.reserve({ reservationId: 'r1', scopes: [{ key: other, periodId: DAY, limit: 10, estimate: 1 }], ttlMs: 60_000, now });
      await store.settle('r1', [{ key: other, periodId: DAY, amount: 10 }]);
      expect(
        await store.reserve({
          reservationId: 'r2',
          scopes: [scope(1000, 5), { key: other, periodId: DAY, limit: 10, estimate: 1 }],
          ttlMs: 60_000,
          now,
        }),
      ).toMatchObject({ outcome: 'exhausted', key: other });
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)).toEqual({ used: 0, reserved: 0 });
    });

    it('a counter of an earlier period counts zero; resetPeriod zeroes only that kind of period', async () => {
      const monthKey = key.replace(':day:', ':month:');
      await store.reserve({
        reservationId: 'r1',
        scopes: [scope(100, 10), { key: monthKey, periodId: '2026-11', limit: 100, estimate: 10 }],
        ttlMs: 60_000,
        now,
      });
      await store.settle('r1', [
        { key, periodId: DAY, amount: 100 },
        { key: monthKey, periodId: '2026-11', amount: 100 },
      ]);
      expect((await store.read([{ key, periodId: '2026-11-27' }], now)).get(key)?.used).toBe(0);
      expect(await store.resetPeriod('day', '2026-11-27')).toBeGreaterThanOrEqual(1);
      expect((await store.read([{ key, periodId: DAY }], now)).get(key)?.used).toBe(0);
      expect(await store.reserve({ reservationId: 'r2', scopes: [scope(100, 10, '2026-11-27')], ttlMs: 60_000, now })).toEqual({
        outcome: 'reserved',
      });
      expect((await store.read([{ key: monthKey, periodId: '2026-11' }], now)).get(monthKey)?.used).toBe(100);
    });

    it('raise sets a counter to at least what it is given, never lowers one, and replaces an earlier period', async () => {
      const other = `agent:b-${randomUUID().slice(0, 8)}:day:tokens`;
      await store.settle('r1', [{ key, periodId: DAY, amount: 500 }]);
      await store.settle('r2', [{ key: other, periodId: '2026-11-25', amount: 900 }]);
      // key: 500 now, 300 given — kept; other: yesterday's 900 — today's 200 replaces it; a new counter takes its value.
      const fresh = `agent:c-${randomUUID().slice(0, 8)}:month:usd`;
      expect(
        await store.raise([
          { key, periodId: DAY, used: 300 },
          { key: other, periodId: DAY, used: 200 },
          { key: fresh, periodId: '2026-11', used: 1_234 },
        ]),
      ).toBe(2);
      const read = await store.read(
        [
          { key, periodId: DAY },
          { key: other, periodId: DAY },
          { key: fresh, periodId: '2026-11' },
        ],
        now,
      );
      expect([read.get(key)?.used, read.get(other)?.used, read.get(fresh)?.used]).toEqual([500, 200, 1_234]);
      expect(await store.raise([{ key, periodId: DAY, used: 800 }])).toBe(1);
      // A raised counter is charged and admitted like any other.
      expect(await store.settle('r3', [{ key, periodId: DAY, amount: 50 }])).toEqual([{ key, before: 800, after: 850 }]);
      expect(await store.reserve({ reservationId: 'r4', scopes: [scope(900, 100)], ttlMs: 60_000, now })).toMatchObject({
        outcome: 'exhausted',
        used: 850,
      });
    });

    it('a reservation whose process died stops holding budget after its TTL; release drops one at once', async () => {
      await store.reserve({ reservationId: 'dead', scopes: [scope(100, 80)], ttlMs: 1_000, now });
      expect(await store.reserve({ reservationId: 'r2', scopes: [scope(100, 50)], ttlMs: 60_000, now })).toEqual({ outcome: 'wait', key });
      expect(await store.reserve({ reservationId: 'r2', scopes: [scope(100, 50)], ttlMs: 60_000, now: now + 1_001 })).toEqual({
        outcome: 'reserved',
      });
      await store.release('r2', [key]);
      expect((await store.read([{ key, periodId: DAY }], now + 1_001)).get(key)).toEqual({ used: 0, reserved: 0 });
    });

    it('markOnce is true once per flag', async () => {
      const flag = `warn:${key}:${DAY}`;
      expect(await store.markOnce(flag, 60_000)).toBe(true);
      expect(await store.markOnce(flag, 60_000)).toBe(false);
    });

    if (options.sharedAcrossOpens) {
      /**
       * Four callers on two stores, each reserving `estimate` and then charging `cost`, until the store says
       * exhausted. Returns how many calls were admitted and what the counter used at the end.
       */
      const spendConcurrently = async (limit: number, estimate: number, cost: number): Promise<{ made: number; used: number }> => {
        const second = await open();
        let made = 0;
        const caller = async (s: BudgetStore, name: string): Promise<void> => {
          for (let i = 0; ; i++) {
            const id = `${name}-${i}`;
            const result = await s.reserve({ reservationId: id, scopes: [scope(limit, estimate)], ttlMs: 60_000, now });
            if (result.outcome === 'exhausted') return;
            if (result.outcome === 'wait') {
              await new Promise((r) => setTimeout(r, 2));
              i -= 1;
              continue;
            }
            made += 1;
            await new Promise((r) => setTimeout(r, 1));
            await s.settle(id, [{ key, periodId: DAY, amount: cost }]);
          }
        };
        await Promise.all([caller(store, 'a'), caller(second, 'b'), caller(store, 'c'), caller(second, 'd')]);
        return { made, used: (await store.read([{ key, periodId: DAY }], now)).get(key)?.used ?? 0 };
      };

      it('concurrent calls through two stores on the same storage never take the same room twice: exact estimates never overshoot', async () => {
        // 1,000 tokens, 70 per call: 14 calls fit (980) and a 15th does not, however the four callers interleave.
        const { made, used } = await spendConcurrently(1_000, 70, 70);
        expect(made).toBe(14);
        expect(used).toBe(980);
      }, 60_000);

      it('concurrent calls that cost more than their estimate overshoot by at most the estimate error of the calls in flight', async () => {
        const limit = 1_000;
        const estimate = 50;
        const cost = 70;
        const { made, used } = await spendConcurrently(limit, estimate, cost);
        expect(used).toBe(made * cost);
        // Refused only once less than one estimate was left ...
        expect(used).toBeGreaterThan(limit - estimate);
        // ... and at most four calls (one per caller) were in flight when the last one was admitted.
        expect(used).toBeLessThanOrEqual(limit + 4 * (cost - estimate));
      }, 60_000);
    }
  });
}
