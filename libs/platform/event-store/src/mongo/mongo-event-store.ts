import { createConnection, mongo, Schema, type ClientSession, type ConnectOptions, type Connection, type Model } from 'mongoose';
import { ConcurrencyError, EventLogUnavailableError, InvalidEventError } from '../errors.js';
import {
  streamCategory,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
} from '../event-store.port.js';
import {
  assertCheckpointName,
  assertCheckpointPosition,
  assertExpectedVersion,
  prepareBatch,
  readAllBounds,
  readStreamBounds,
  appendResult,
  type PreparedEvent,
  versionMatches,
} from '../validation.js';
import { sleep } from '@tenet/messaging';

export interface MongoEventStoreOptions {
  /** A replica set (or mongos) URI: appends are multi-document transactions. */
  uri: string;
  dbName: string;
  /** Prefix for the three collection names, e.g. `tenet_` → `tenet_events`. Default none. */
  collectionPrefix?: string;
  /** Extra driver options for the store's own connection. */
  connectOptions?: ConnectOptions;
  /** Attempts per append before giving up under contention (write conflicts, duplicate keys). Default 50. */
  maxAppendAttempts?: number;
}

/** One document per event; `_id` is the event id, so a duplicate id is a duplicate key. */
interface EventDocument {
  _id: string;
  stream: string;
  /** `streamCategory(stream)`, absent for ids without '-': indexed with `position` for category reads. */
  category?: string;
  offset: number;
  position: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
}

interface CounterDocument {
  _id: string;
  value: number;
}

interface CheckpointDocument {
  _id: string;
  position: number;
  updatedAt: Date;
}

const POSITION_COUNTER = 'events.position';
const DUPLICATE_KEY = 11000;
const NOT_A_REPLICA_SET =
  'MongoEventStore needs a replica set or a sharded cluster: appends are multi-document transactions. ' +
  'For one node, start mongod with --replSet rs0 and run rs.initiate() once.';

// Schemas are plain storage shapes: validation happens before a write (validation.ts), and inserts are
// `lean` so mongoose neither casts nor drops anything (minimize: false keeps `{}` data as written).
const eventSchema = new Schema<EventDocument>(
  {
    _id: { type: String, required: true },
    stream: { type: String, required: true },
    category: { type: String },
    offset: { type: Number, required: true },
    position: { type: Number, required: true },
    type: { type: String, required: true },
    data: { type: Schema.Types.Mixed },
    metadata: { type: Schema.Types.Mixed },
    recordedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, autoIndex: false, autoCreate: false, bufferCommands: false },
);
eventSchema.index({ stream: 1, offset: 1 }, { unique: true, name: 'stream_offset_unique' });
eventSchema.index({ position: 1 }, { unique: true, name: 'position_unique' });
eventSchema.index({ category: 1, position: 1 }, { name: 'category_position' });

const counterSchema = new Schema<CounterDocument>(
  { _id: { type: String, required: true }, value: { type: Number, required: true } },
  { versionKey: false, autoIndex: false, autoCreate: false, bufferCommands: false },
);

const checkpointSchema = new Schema<CheckpointDocument>(
  { _id: { type: String, required: true }, position: { type: Number, required: true }, updatedAt: { type: Date, required: true } },
  { versionKey: false, autoIndex: false, autoCreate: false, bufferCommands: false },
);

/**
 * The production event store on MongoDB (replica set). Each append is one transaction that
 *   1. increments the global position counter document by the batch size,
 *   2. reads the stream's last offset and checks the expected version,
 *   3. inserts the events with consecutive offsets and positions.
 * Every append writes the same counter document, so concurrent appends conflict on it (WriteConflict,
 * labelled TransientTransactionError) and only one at a time can commit: a transaction that gets past
 * step 1 started after the previous holder committed, so its positions are larger AND it commits later.
 * Position order is commit order, which is what lets `readAll` consumers keep a single "after position"
 * cursor without ever missing an event that commits late with a smaller position.
 */
export class MongoEventStore implements EventStore {
  private readonly events: Model<EventDocument>;
  private readonly counters: Model<CounterDocument>;
  private readonly checkpoints: Model<CheckpointDocument>;
  private readonly maxAppendAttempts: number;
  // Appends from one process are queued: the counter serialises them in the database anyway, and queueing
  // them here turns N-1 doomed transactions per append into none. Retries then only handle other processes.
  private appendTail: Promise<unknown> = Promise.resolve();
  private closed = false;

  static async connect(options: MongoEventStoreOptions): Promise<MongoEventStore> {
    const connection = createConnection(options.uri, { ...options.connectOptions, dbName: options.dbName });
    try {
      await connection.asPromise();
      await assertTransactionsSupported(connection);
      const store = new MongoEventStore(connection, options);
      await store.createCollectionsAndIndexes();
      return store;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  private constructor(
    private readonly connection: Connection,
    options: MongoEventStoreOptions,
  ) {
    const prefix = options.collectionPrefix ?? '';
    this.events = connection.model<EventDocument>('EventLogEvent', eventSchema, `${prefix}events`);
    this.counters = connection.model<CounterDocument>('EventLogCounter', counterSchema, `${prefix}event_counters`);
    this.checkpoints = connection.model<CheckpointDocument>('EventLogCheckpoint', checkpointSchema, `${prefix}event_checkpoints`);
    this.maxAppendAttempts = Math.max(1, options.maxAppendAttempts ?? 50);
  }

  async append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    this.assertOpen();
    const prepared = prepareBatch(streamId, events);
    const expected = options?.expectedVersion ?? 'any';
    assertExpectedVersion(expected);
    const run = this.appendTail.then(() => this.appendWithRetry(streamId, prepared, expected));
    this.appendTail = run.catch(() => undefined);
    return run;
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { fromOffset, limit, types } = readStreamBounds(streamId, options);
    // A Mongo limit of 0 means "no limit".
    if (limit === 0 || types?.length === 0) return [];
    return this.readAtOnePointInTime(async (session) => {
      const filter = { stream: streamId, offset: { $gte: fromOffset }, ...(types ? { type: { $in: types } } : {}) };
      const query = this.events.find(filter, null, { session }).sort({ offset: 1 });
      if (limit !== undefined) query.limit(limit);
      return (await query.lean<EventDocument[]>()).map(fromDocument);
    });
  }

  async readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { afterPosition, limit, categories, types } = readAllBounds(options);
    if (limit === 0 || types?.length === 0 || categories?.length === 0) return [];
    return this.readAtOnePointInTime(async (session) => {
      const filter = {
        position: { $gt: afterPosition },
        ...(categories !== undefined ? { category: categories.length === 1 ? categories[0] : { $in: categories } } : {}),
        ...(types ? { type: { $in: types } } : {}),
      };
      const query = this.events.find(filter, null, { session }).sort({ position: 1 });
      if (limit !== undefined) query.limit(limit);
      return (await query.lean<EventDocument[]>()).map(fromDocument);
    });
  }

  async streamVersion(streamId: string): Promise<number> {
    this.assertOpen();
    readStreamBounds(streamId, undefined);
    return this.lastOffset(streamId);
  }

  async loadCheckpoint(name: string): Promise<number> {
    this.assertOpen();
    assertCheckpointName(name);
    const checkpoint = await this.checkpoints.findById(name).lean<CheckpointDocument>();
    return checkpoint?.position ?? 0;
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.assertOpen();
    assertCheckpointName(name);
    assertCheckpointPosition(position);
    await this.checkpoints.updateOne({ _id: name }, { $set: { position, updatedAt: new Date() } }, { upsert: true });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appendTail;
    await this.connection.close();
  }

  private async createCollectionsAndIndexes(): Promise<void> {
    // Collections cannot be created implicitly inside every transaction on every server version; make them
    // (and the unique indexes the invariants rest on) up front.
    await this.events.createCollection();
    await this.events.createIndexes();
    // Events written before the category field existed get it once (idempotent: only documents without it whose
    // stream id has a '-'; appends write it themselves).
    await this.events.updateMany({ category: { $exists: false }, stream: { $regex: '-' } }, [
      { $set: { category: { $concat: [{ $arrayElemAt: [{ $split: ['$stream', '-'] }, 0] }, '-'] } } },
    ]);
    await this.counters.createCollection();
    await this.checkpoints.createCollection();
    try {
      await this.counters.updateOne({ _id: POSITION_COUNTER }, { $setOnInsert: { value: 0 } }, { upsert: true });
    } catch (error) {
      // Two processes starting together both try to create the counter; one of them loses the upsert race.
      if (!isDuplicateKey(error)) throw error;
    }
  }

  private async appendWithRetry(streamId: string, events: PreparedEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(streamId, events, expected);
      } catch (error) {
        if (error instanceof ConcurrencyError || error instanceof InvalidEventError) throw error;
        if (isNotReplicaSet(error)) throw new EventLogUnavailableError(NOT_A_REPLICA_SET, { cause: error });
        const duplicate = isDuplicateKey(error);
        if (!duplicate && !hasLabel(error, 'TransientTransactionError')) throw error;
        if (duplicate) {
          // Either an event id already exists (caller's input: never retried) or another writer took the
          // offset between our read and our insert (a conflict: retried only when any version will do).
          const taken = await this.events
            .find({ _id: { $in: events.map((event) => event.id) } }, { _id: 1 })
            .lean<Pick<EventDocument, '_id'>[]>();
          const clash = events.findIndex((event) => taken.some((document) => document._id === event.id));
          if (clash >= 0)
            throw new InvalidEventError(`events[${clash}].id`, `already used by another event in the log ("${events[clash]?.id}")`);
          if (expected !== 'any') throw new ConcurrencyError(streamId, expected, await this.lastOffset(streamId));
        }
        if (attempt >= this.maxAppendAttempts) {
          throw new ConcurrencyError(
            streamId,
            expected,
            await this.lastOffset(streamId),
            `gave up after ${attempt} attempts under write contention`,
          );
        }
        await sleep(backoffMs(attempt));
      }
    }
  }

  private async appendOnce(streamId: string, events: PreparedEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const session = await this.connection.startSession();
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' });
      // Counter first: it is the serialisation point, so a loser conflicts before doing any other work.
      const counter = await this.counters
        .findOneAndUpdate({ _id: POSITION_COUNTER }, { $inc: { value: events.length } }, { session, upsert: true, returnDocument: 'after' })
        .lean<CounterDocument>();
      if (!counter) throw new Error(`MongoEventStore: position counter "${POSITION_COUNTER}" missing after upsert`);
      const actual = await this.lastOffset(streamId, session);
      if (!versionMatches(expected, actual)) throw new ConcurrencyError(streamId, expected, actual);
      const firstPosition = counter.value - events.length + 1;
      const recordedAt = new Date();
      const category = streamCategory(streamId);
      const documents = events.map((event, index): EventDocument => ({
        _id: event.id,
        stream: streamId,
        ...(category !== undefined ? { category } : {}),
        offset: actual + 1 + index,
        position: firstPosition + index,
        type: event.type,
        data: JSON.parse(event.dataJson) as unknown,
        metadata: JSON.parse(event.metadataJson) as Record<string, unknown>,
        recordedAt,
      }));
      await this.events.insertMany(documents, { session, ordered: true, lean: true });
      await commitWithRetry(session);
      return appendResult(documents.map(fromDocument));
    } catch (error) {
      if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
      throw error;
    } finally {
      await session.endSession();
    }
  }

  private async lastOffset(streamId: string, session?: ClientSession): Promise<number> {
    const last = await this.events
      .findOne({ stream: streamId }, { offset: 1 }, { session: session ?? null })
      .sort({ offset: -1 })
      .lean<Pick<EventDocument, 'offset'>>();
    return last?.offset ?? -1;
  }

  /**
   * A plain query may yield and resume on a newer snapshot mid-scan: it could pass position P before P's
   * append commits and then see P+1. A snapshot session reads the whole result at one cluster time.
   */
  private async readAtOnePointInTime<T>(read: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = await this.connection.startSession({ snapshot: true, causalConsistency: false });
    try {
      return await read(session);
    } catch (error) {
      if (isNotReplicaSet(error)) throw new EventLogUnavailableError(NOT_A_REPLICA_SET, { cause: error });
      throw error;
    } finally {
      await session.endSession();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new EventLogUnavailableError('MongoEventStore is closed');
  }
}

async function assertTransactionsSupported(connection: Connection): Promise<void> {
  const db = connection.db;
  if (!db) throw new EventLogUnavailableError('MongoEventStore: connection has no database handle after connecting');
  const hello = await db.admin().command({ hello: 1 });
  if (typeof hello['setName'] !== 'string' && hello['msg'] !== 'isdbgrid') throw new EventLogUnavailableError(NOT_A_REPLICA_SET);
}

async function commitWithRetry(session: ClientSession): Promise<void> {
  // Committing again after UnknownTransactionCommitResult is safe: the server applies a commit once.
  for (let attempt = 1; ; attempt++) {
    try {
      await session.commitTransaction();
      return;
    } catch (error) {
      if (!hasLabel(error, 'UnknownTransactionCommitResult') || attempt >= 5) throw error;
    }
  }
}

function fromDocument(document: EventDocument): StoredEvent {
  return {
    id: document._id,
    streamId: document.stream,
    offset: document.offset,
    position: document.position,
    type: document.type,
    data: document.data,
    metadata: document.metadata ?? {},
    recordedAt: document.recordedAt.toISOString(),
  };
}

function hasLabel(error: unknown, label: string): boolean {
  return error instanceof mongo.MongoError && error.hasErrorLabel(label);
}

function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof mongo.MongoError)) return false;
  if (error.code === DUPLICATE_KEY) return true;
  return error instanceof mongo.MongoBulkWriteError && [error.writeErrors].flat().some((writeError) => writeError.code === DUPLICATE_KEY);
}

function isNotReplicaSet(error: unknown): boolean {
  // IllegalOperation: "Transaction numbers are only allowed on a replica set member or mongos".
  return error instanceof mongo.MongoServerError && error.code === 20;
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(200, 5 * 2 ** Math.min(attempt, 10));
  // Jitter so two processes that conflicted do not retry in lockstep.
  return ceiling / 2 + Math.random() * (ceiling / 2);
}
