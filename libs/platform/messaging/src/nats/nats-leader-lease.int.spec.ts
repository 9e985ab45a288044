import { randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { describeWithService, eventually, natsUrl, probeNats } from '@tenet/testing';
import { NatsLeaderLease, type NatsLeaderLeaseOptions } from './nats-leader-lease.js';

// Long enough that a renewal delayed by a loaded CI machine (event-loop stalls of over half a second were seen
// at a load average of 16) does not depose the leader; the waits below scale with it.
const LEASE_MS = 3_000;

interface Contender {
  lease: NatsLeaderLease;
  events: string[];
  errors: unknown[];
}

describeWithService(await probeNats(), 'NatsLeaderLease on a real NATS server (KV compare-and-set)', () => {
  let key: string;
  let connections: NatsConnection[];
  let contenders: Contender[];

  const contender = async (overrides: Partial<NatsLeaderLeaseOptions> = {}): Promise<Contender> => {
    const connection = await connect({ servers: natsUrl() });
    connections.push(connection);
    const errors: unknown[] = [];
    const lease = await NatsLeaderLease.open({
      connection,
      key,
      leaseMs: LEASE_MS,
      holder: `test-${contenders.length}`,
      onError: (error) => errors.push(error),
      ...overrides,
    });
    const events: string[] = [];
    await lease.start({ elected: () => events.push('elected'), deposed: () => events.push('deposed') });
    const created = { lease, events, errors };
    contenders.push(created);
    return created;
  };

  beforeEach(() => {
    key = `test.${randomUUID()}`;
    connections = [];
    contenders = [];
  });

  afterEach(async () => {
    for (const { lease } of contenders) await lease.stop();
    for (const connection of connections) if (!connection.isClosed()) await connection.drain();
  });

  it('lets exactly one contender lead, keeps it leading by renewal, and elects a standby at once when the leader releases', async () => {
    const first = await contender();
    const second = await contender();
    expect(first.lease.isLeader()).toBe(true);
    expect(second.lease.isLeader()).toBe(false);

    // Several leases later the leader still leads (renewed every lease/3) and the standby still stands by.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    expect([first.lease.isLeader(), second.lease.isLeader()]).toEqual([true, false]);
    expect(first.events).toEqual(['elected']);
    expect(second.events).toEqual([]);

    const released = Date.now();
    await first.lease.stop();
    await eventually(() => expect(second.lease.isLeader()).toBe(true), { timeoutMs: 5_000, intervalMs: 5 });
    // The standby watched the key: it did not wait for the lease to lapse.
    expect(Date.now() - released).toBeLessThan(LEASE_MS / 2);
    expect(second.events).toEqual(['elected']);
    expect([...first.errors, ...second.errors]).toEqual([]);
  });

  it('takes over a claim nobody renews (a crashed holder) only after the lease, and the stranded holder stops leading by itself', async () => {
    const first = await contender();
    const second = await contender();
    expect(first.lease.isLeader()).toBe(true);

    // The holder's connection dies without a release: its claim stays in the bucket.
    const crashedAt = Date.now();
    await connections[0]!.close();
    await eventually(() => expect(first.lease.isLeader()).toBe(false), { timeoutMs: 5_000, intervalMs: 5 });
    // It stopped leading before its lease could have passed to anyone else.
    expect(second.lease.isLeader()).toBe(false);

    await eventually(() => expect(second.lease.isLeader()).toBe(true), { timeoutMs: 4 * LEASE_MS, intervalMs: 10 });
    // Not before a lease had passed since its last renewal (at most lease/3 before the crash).
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
    expect(first.lease.isLeader()).toBe(false);
    expect(first.events).toEqual(['elected', 'deposed']);
    expect(second.events).toEqual(['elected']);
  });

  it('deposes a leader whose claim was overwritten (learned by CAS), and counts the new claim from its own clock', async () => {
    const first = await contender();
    expect(first.lease.isLeader()).toBe(true);

    // Someone else's claim lands on the key (e.g. a contender that judged the lease lapsed).
    const kv = await new Kvm(connections[0]!).open('TENET_LEASES');
    await kv.put(key, JSON.stringify({ holder: 'intruder', instance: 'intruder', lease_ms: 60_000 }));

    await eventually(() => expect(first.events).toEqual(['elected', 'deposed']), { timeoutMs: 5_000, intervalMs: 5 });
    expect(first.lease.isLeader()).toBe(false);
    // The intruder never renews, but its claim asks for 60 s: no takeover within a few of our leases.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    expect(first.lease.isLeader()).toBe(false);
    expect((await kv.get(key))?.json<{ holder: string }>().holder).toBe('intruder');
    await kv.delete(key);
    await eventually(() => expect(first.lease.isLeader()).toBe(true), { timeoutMs: 5_000, intervalMs: 5 });
  });

  it('re-claims its own claim after renewals failed, when nobody took it over meanwhile', async () => {
    let offset = 0;
    const first = await contender({ clock: () => performance.now() + offset });
    expect(first.lease.isLeader()).toBe(true);
    offset += 2 * LEASE_MS; // as if the process had been paused for two leases
    expect(first.lease.isLeader()).toBe(false);
    await eventually(() => expect(first.events).toEqual(['elected', 'deposed', 'elected']), { timeoutMs: 5_000, intervalMs: 5 });
    expect(first.lease.isLeader()).toBe(true);
  });

  it('releases on stop only its own claim', async () => {
    const first = await contender();
    const kv = await new Kvm(connections[0]!).open('TENET_LEASES');
    const revision = (await kv.get(key))!.revision;
    await kv.update(key, JSON.stringify({ holder: 'successor', instance: 'successor', lease_ms: 60_000 }), revision);
    await first.lease.stop();
    expect((await kv.get(key))?.json<{ holder: string }>().holder).toBe('successor');
  });
});
