import { randomUUID } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError, StorageType } from '@nats-io/jetstream';
import { Kvm, KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** Told when this process takes the lease and when it learns that it lost it. */
export interface LeaderLeaseListener {
  elected(): void;
  deposed(): void;
}

export interface NatsLeaderLeaseOptions {
  /** An open connection; the lease does not own it (close the lease before the connection). */
  connection: NatsConnection;
  /** The KV key contenders compete for: one key per thing that must have one leader. `[-/_=.A-Za-z0-9]`. */
  key: string;
  /** KV bucket holding the leases. Default `TENET_LEASES`. */
  bucket?: string;
  /**
   * How long a claim stands without renewal. The leader renews every third of it and stops leading when it
   * could not renew for (almost) all of it; a standby takes over a claim it has seen unchanged for this long.
   * Default 10 000.
   */
  leaseMs?: number;
  /** Who holds the lease, for operators reading the bucket (e.g. `session-gateway@host/pid`). */
  holder?: string;
  /** What the lease is for, stored alongside (e.g. the event log it guards). */
  about?: string;
  /** Told about failed KV operations (the lease keeps trying). Default: `console.error`. */
  onError?: (error: unknown) => void;
  /** Monotonic milliseconds; tests may replace it. Default `performance.now`. */
  clock?: () => number;
}

/** The value stored under the key. `instance` identifies one lease object (one process life). */
interface Claim {
  holder: string;
  instance: string;
  lease_ms: number;
  about?: string;
}

const KEY = /^[-/_=.A-Za-z0-9]+$/;
/**
 * The bucket's max_age only collects the claims of deployments that went away for good: every live claim is
 * rewritten each lease/3, and expiry of a crashed leader is measured by the contenders (see `contend`).
 */
const BUCKET_MAX_AGE_MS = 60 * 60 * 1_000;

const isCasFailure = (error: unknown): boolean =>
  error instanceof JetStreamApiError &&
  (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * The bucket may be gone: its stream is reported missing, or — a server back without its store — a KV operation finds
 * nothing answering its subject and times out. The handle is then dropped and the bucket made again (create is
 * idempotent), at the cost of one more API call after an ordinary timeout.
 */
const isBucketGone = (error: unknown): boolean =>
  (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) ||
  (error instanceof Error &&
    (/stream not found|no responders/i.test(error.message) || error.name === 'TimeoutError' || /^timeout$/i.test(error.message)));

/** JetStream API error 10058: the stream exists with another configuration (an older or newer Tenet created it). */
const STREAM_NAME_IN_USE = 10_058;

/**
 * A leader lease in a NATS JetStream KV bucket, decided by compare-and-set on the key's revision:
 *
 * - claim: `create(key)` (succeeds only if the key is absent or deleted); take over a lapsed claim or re-claim
 *   one's own: `update(key, claim, revisionSeen)`;
 * - renew every lease/3 with `update(key, claim, myRevision)`; a CAS failure means someone else holds it now
 *   (deposed at once); other failures are retried, and `isLeader()` turns false by itself once the last
 *   successful renewal is older than the lease minus a margin — before any contender can take over;
 * - a contender takes over a claim whose revision it has seen unchanged for the holder's `lease_ms`, measured on
 *   its own monotonic clock (no wall-clock comparison between machines); it watches the key, so a renewal
 *   resets its count and a release (`stop()` deletes the key, by CAS on the leader's revision) elects a
 *   standby at once.
 *
 * At most one instance can believe it leads with a current claim: all writes are CAS on one key in one stream.
 * A leader paused (GC, SIGSTOP) right after checking `isLeader()` may still act once after a takeover; users
 * of the lease must tolerate that (the event-log relay's publishes are deduplicated by message id).
 */
export class NatsLeaderLease {
  private readonly nc: NatsConnection;
  private readonly key: string;
  private readonly bucket: string;
  private readonly leaseMs: number;
  private readonly margin: number;
  private readonly claim: Claim;
  private readonly onError: (error: unknown) => void;
  private readonly clock: () => number;

  private kv: KV | undefined;
  private listener: LeaderLeaseListener | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private leading = false;
  /** Revision of this instance's latest successful write (0: none). */
  private revision = 0;
  private validUntil = 0;
  /** The foreign claim a standby is timing: its revision, when first seen, and its holder's lease. */
  private observed: { revision: number; at: number; leaseMs: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watcher: { stop(): void } | undefined;
  private watching = false;
  private queue: Promise<void> = Promise.resolve();

  private constructor(options: NatsLeaderLeaseOptions) {
    if (!KEY.test(options.key) || options.key.startsWith('.') || options.key.endsWith('.'))
      throw new TypeError(`NatsLeaderLease: key "${options.key}" is not a valid KV key`);
    const leaseMs = options.leaseMs ?? 10_000;
    if (!Number.isSafeInteger(leaseMs) || leaseMs < 100)
      throw new RangeError('NatsLeaderLease: leaseMs must be an integer of at least 100');
    this.nc = options.connection;
    this.key = options.key;
    this.bucket = options.bucket ?? 'TENET_LEASES';
    this.leaseMs = leaseMs;
    this.margin = Math.min(1_000, Math.ceil(leaseMs / 10));
    this.claim = {
      holder: options.holder ?? 'unknown',
      instance: randomUUID(),
      lease_ms: leaseMs,
      ...(options.about ? { about: options.about } : {}),
    };
    this.onError = options.onError ?? ((error: unknown) => console.error(`[messaging] leader lease "${this.key}" failed; retrying`, error));
    this.clock = options.clock ?? (() => performance.now());
  }

  /** Creates the bucket if needed (every replica may race to), so a NATS without JetStream fails here. */
  static async open(options: NatsLeaderLeaseOptions): Promise<NatsLeaderLease> {
    const lease = new NatsLeaderLease(options);
    await lease.ensureKv();
    return lease;
  }

  /** The instance id written into this lease's claims. */
  get instance(): string {
    return this.claim.instance;
  }

  /** Tries to claim at once (resolves when that attempt settled), then renews or contends every lease/3. */
  async start(listener: LeaderLeaseListener): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'running';
    this.listener = listener;
    await this.enqueue(() => this.tick());
    if (this.state !== 'running') return;
    this.timer = setInterval(() => void this.enqueue(() => this.tick()), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.watch();
  }

  /** True while this instance holds a claim it renewed less than a lease (minus a margin) ago. */
  isLeader(): boolean {
    return this.leading && this.clock() < this.validUntil;
  }

  /** Stops renewing and contending and deletes the claim if it is still this instance's latest write. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    clearInterval(this.timer);
    this.timer = undefined;
    this.watcher?.stop();
    await this.queue;
    if (!wasRunning || this.revision === 0 || !this.kv) return;
    const held = this.leading;
    this.leading = false;
    try {
      // By CAS: a claim someone took over since is theirs and must stay.
      await this.kv.delete(this.key, { previousSeq: this.revision });
    } catch (error) {
      if (held && !isCasFailure(error)) this.report(error);
    }
  }

  /** One operation at a time: a renewal, a claim and a watch-triggered look never interleave. */
  private enqueue(operation: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(operation).catch((error: unknown) => {
      if (isBucketGone(error)) this.kv = undefined; // recreated at the next tick
      this.report(error);
    });
    return this.queue;
  }

  private async tick(): Promise<void> {
    if (this.state !== 'running') return;
    if (!this.watching) this.watch();
    if (this.leading) {
      if (this.clock() < this.validUntil) return this.renew();
      this.depose(); // renewals failed for too long: a contender may take over from now on
    }
    await this.contend();
  }

  private async renew(): Promise<void> {
    const kv = await this.ensureKv();
    const sentAt = this.clock();
    try {
      this.revision = await kv.update(this.key, JSON.stringify(this.claim), this.revision, Math.max(100, Math.floor(this.leaseMs / 3)));
      this.validUntil = sentAt + this.leaseMs - this.margin;
    } catch (error) {
      if (!isCasFailure(error)) throw error;
      this.depose();
      await this.contend(); // perhaps our own write landed after its timeout: then it is ours to re-claim
    }
  }

  private async contend(): Promise<void> {
    if (this.state !== 'running' || this.leading) return;
    const kv = await this.ensureKv();
    const entry = await kv.get(this.key);
    if (!entry || entry.operation !== 'PUT') return this.take(() => kv.create(this.key, JSON.stringify(this.claim)));
    const claim = parseClaim(entry);
    if (claim?.instance === this.claim.instance) return this.take(() => kv.update(this.key, JSON.stringify(this.claim), entry.revision));
    const now = this.clock();
    if (this.observed?.revision !== entry.revision) {
      this.observed = { revision: entry.revision, at: now, leaseMs: claim?.lease_ms ?? this.leaseMs };
      return;
    }
    if (now - this.observed.at >= this.observed.leaseMs)
      return this.take(() => kv.update(this.key, JSON.stringify(this.claim), entry.revision));
  }

  private async take(write: () => Promise<number>): Promise<void> {
    const sentAt = this.clock();
    try {
      this.revision = await write();
    } catch (error) {
      if (isCasFailure(error)) return; // another contender was faster; we time its claim from the next look
      throw error;
    }
    this.validUntil = sentAt + this.leaseMs - this.margin;
    this.observed = undefined;
    if (this.state !== 'running' || this.leading) return;
    this.leading = true;
    this.tell('elected');
  }

  private depose(): void {
    if (!this.leading) return;
    this.leading = false;
    this.tell('deposed');
  }

  private tell(event: 'elected' | 'deposed'): void {
    try {
      this.listener?.[event]();
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * Updates of the key, pushed: a standby looks at once (a release elects it immediately; a renewal restarts its
   * count), a leader that sees a newer foreign write renews now and so learns by CAS that it was deposed.
   */
  private watch(): void {
    if (this.watching || this.state !== 'running') return;
    this.watching = true;
    void (async () => {
      try {
        const kv = await this.ensureKv();
        const updates = await kv.watch({ key: this.key, include: KvWatchInclude.UpdatesOnly });
        this.watcher = updates;
        if (this.state !== 'running') updates.stop();
        for await (const entry of updates) {
          if (this.state !== 'running') break;
          if (!this.leading) void this.enqueue(() => this.contend());
          else if (entry.revision > this.revision && (entry.operation !== 'PUT' || parseClaim(entry)?.instance !== this.claim.instance))
            void this.enqueue(() => this.tick());
        }
      } catch (error) {
        if (this.state === 'running') this.report(error);
      } finally {
        this.watcher = undefined;
        this.watching = false; // the next tick starts another
      }
    })();
  }

  private async ensureKv(): Promise<KV> {
    if (this.kv) return this.kv;
    const kvm = new Kvm(this.nc);
    try {
      this.kv = await kvm.create(this.bucket, {
        history: 1,
        ttl: BUCKET_MAX_AGE_MS,
        storage: StorageType.File,
        description: 'Tenet leader leases (see ADR 0009)',
      });
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.code !== STREAM_NAME_IN_USE) throw error;
      this.kv = await kvm.open(this.bucket);
    }
    return this.kv;
  }

  private report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // A broken error reporter must not stop the lease.
    }
  }
}

function parseClaim(entry: KvEntry): Claim | undefined {
  try {
    const claim = entry.json<Partial<Claim>>();
    return typeof claim.instance === 'string' && typeof claim.lease_ms === 'number' ? (claim as Claim) : undefined;
  } catch {
    return undefined;
  }
}
