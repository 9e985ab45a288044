import { InMemoryEventStore } from '@tenet/event-store';
import { InProcessMessageBus } from '@tenet/messaging';
import { TurnLeaseLostError, TurnLeases } from './turn-lease.js';
import { TurnRecovery, TURN_INTERRUPTED } from './turn-recovery.js';

describe('turn leases held by owner liveness', () => {
  const clock = { now: 1_000_000 };
  let store: InMemoryEventStore;
  let bus: InProcessMessageBus;
  const gateways: TurnLeases[] = [];
  const gateway = async (owner: string): Promise<TurnLeases> => {
    const leases = new TurnLeases(store, bus, owner, { ttlMs: 3_000, now: () => clock.now });
    await leases.start();
    gateways.push(leases);
    return leases;
  };

  beforeEach(() => {
    clock.now = 1_000_000;
    store = new InMemoryEventStore();
    bus = new InProcessMessageBus();
  });
  afterEach(async () => {
    for (const g of gateways.splice(0)) await g.stop();
    await bus.close();
  });

  it('given a holder whose heartbeat went stale, when another gateway wants the session, then it takes the lease over and the old holder learns it lost it', async () => {
    const a = await gateway('gw-a');
    const b = await gateway('gw-b');
    const held = await a.acquire('s1', 0);
    await expect(held.assertHeld()).resolves.toBeUndefined();
    // While a is alive, b waits.
    let bHolds = false;
    const waiting = b.acquire('s1', 1).then((lease) => ((bHolds = true), lease));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bHolds).toBe(false);
    // a stalls (its heartbeat timer no longer runs): its last beat gets older than the TTL while b keeps beating.
    clearInterval((a as unknown as { heartbeat: NodeJS.Timeout }).heartbeat);
    clock.now += 3_001;
    await (b as unknown as { beat(): Promise<void> }).beat();
    const taken = await waiting;
    expect(bHolds).toBe(true);
    await expect(held.assertHeld()).rejects.toBeInstanceOf(TurnLeaseLostError);
    await expect(taken.assertHeld()).resolves.toBeUndefined();
  }, 30_000);

  it('given a gateway that died with open turns, when another sweeps, then each is closed with TURN.INTERRUPTED and the dead claim released so the next turn needs no wait', async () => {
    const dead = await gateway('gw-dead');
    const statuses: { sessionId: string; data: Record<string, unknown>; correlationId: string }[] = [];
    const record = async (sessionId: string, _status: 'error', data: Record<string, unknown>, correlationId: string): Promise<void> =>
      void statuses.push({ sessionId, data, correlationId });
    const deadRecovery = new TurnRecovery(store, dead, record);
    await deadRecovery.opened('s1', 0, 'corr-1');
    await dead.acquire('s1', 0);
    await deadRecovery.opened('s1', 1, 'corr-2'); // waiting behind the first
    // The process dies: no more heartbeats, no stop().
    clearInterval((dead as unknown as { heartbeat: NodeJS.Timeout }).heartbeat);
    gateways.splice(gateways.indexOf(dead), 1);
    const alive = await gateway('gw-alive');
    const recovery = new TurnRecovery(store, alive, record);
    expect(await recovery.sweep()).toBe(0); // the dead owner's beat is still fresh
    clock.now += 3_001;
    await (alive as unknown as { beat(): Promise<void> }).beat();
    expect(await recovery.sweep()).toBe(2);
    expect(statuses.map((s) => [s.sessionId, s.correlationId, s.data['code']])).toEqual([
      ['s1', 'corr-1', TURN_INTERRUPTED],
      ['s1', 'corr-2', TURN_INTERRUPTED],
    ]);
    // Swept once only, and the lease is free.
    expect(await new TurnRecovery(store, alive, record).sweep()).toBe(0);
    expect((await alive.current('s1')).held).toBeUndefined();
  });
});
