import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
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
  type StreamAppend,
} from '../event-store.port.js';
import { currentLane, eventLoopSlices, inLane, type EventLoopSlices, type SliceLane } from '../event-loop-slices.js';
import {
  assertCheckpointName,
  assertCheckpointPosition,
  assertExpectedVersion,
  prepareBatch,
  readAllBounds,
  readStreamBounds,
  appendResult,
  type PreparedEvent,
  storedEvent,
  versionMatches,
} from '../validation.js';
import { WalCheckpointer, type WalCheckpointerOptions, type WalCheckpointRow, type WalCheckpointStats } from './wal-checkpointer.js';
import {
  DEFAULT_STREAM_TAIL_CACHE,
  type EventRow,
  rowsFromTail,
  StreamTailCache,
  type StreamTail,
  type StreamTailCacheOptions,
} from './stream-tail-cache.js';

export interface SqliteEventStoreOptions {
  /** Path of the database file. Either this or `dataDir`. */
  file?: string;
  /** Directory for `events.sqlite`; created when missing. */
  dataDir?: string;
  /** How long a writer waits for another connection's write lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /**
   * Time slices shared with the event loop (see EventLoopSlices): calls past the current slice wait for the
   * loop to serve pending I/O first. Default the thread's `eventLoopSlices` (4 ms); `false` runs every call at once.
   */
  slices?: EventLoopSlices | false;
  /**
   * Group commit (default on): appends called while an earlier one is still waiting to run (callers in the same
   * tick, or queued behind an event-loop slice) are written together in one IMMEDIATE transaction, each in its
   * own savepoint, so one caller's ConcurrencyError rolls back only its own events. `false`: one transaction per call.
   */
  groupCommit?: boolean;
  /**
   * Stream tail cache (default on, DEFAULT_STREAM_TAIL_CACHE): `readStream` and `streamVersion` of recently read or
   * appended streams are answered from memory when the read starts within the stream's newest `eventsPerStream`
   * events (StreamTailCache). Exact: kept up to date by this store's own commits and dropped when another connection
   * wrote to the file. `false`: every read goes to SQLite.
   */
  tailCache?: Partial<StreamTailCacheOptions> | false;
  /**
   * WAL checkpoints in a worker thread (default on, WalCheckpointer): the copy of committed pages into the database
   * file and its fsyncs run off the event loop, except for a short finishing pass (see WalCheckpointer) and, only if
   * the worker falls far behind, SQLite's own checkpoint at twice `restartFrames` (8,000 frames by default).
   * `false`: SQLite checkpoints inline, in the commit that crosses 1,000 WAL pages (its default).
   */
  walCheckpoint?: WalCheckpointerOptions | false;
}

interface PreparedAppend {
  streamId: string;
  events: PreparedEvent[];
  expected: ExpectedVersion;
}

interface PendingAppend extends PreparedAppend {
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** An `appendMany` waiting for the group commit: its batches in one savepoint of the group, all or none. */
interface PendingMany {
  many: PreparedAppend[];
  resolve: (results: AppendResult[]) => void;
  reject: (error: unknown) => void;
}

type Pending = PendingAppend | PendingMany;

const batchesOf = (pending: Pending): number => ('many' in pending ? pending.many.length : 1);

/** Lower is more urgent (EventLoopSlices' lanes). */
const URGENCY: Record<SliceLane, number> = { foreground: 0, background: 1, idle: 2 };

export const SQLITE_EVENTS_FILE = 'events.sqlite';

/**
 * The stores open in this process, by file: a commit by one marks the others on the same file as not known to match
 * it (`syncWithFile`), since nothing in between — no I/O, no timer — would make them look again.
 */
const openStores = new Map<string, Set<SqliteEventStore>>();

// `position` is the rowid alias. AUTOINCREMENT makes SQLite take max(ever used)+1 from sqlite_sequence,
// never reusing a value, and every append holds the database write lock (BEGIN IMMEDIATE) from its
// version check to its commit, so positions are handed out in commit order.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position      INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT    NOT NULL UNIQUE,
  stream_id     TEXT    NOT NULL,
  stream_offset INTEGER NOT NULL,
  type          TEXT    NOT NULL,
  data          TEXT    NOT NULL,
  metadata      TEXT    NOT NULL,
  recorded_at   TEXT    NOT NULL,
  UNIQUE (stream_id, stream_offset)
);
CREATE TABLE IF NOT EXISTS checkpoints (
  name       TEXT    PRIMARY KEY,
  position   INTEGER NOT NULL,
  updated_at TEXT    NOT NULL
) WITHOUT ROWID;
`;

// The stream's category (its id up to and including the first '-'; see streamCategory) as a virtual generated
// column with an index on (category, position): a read model of one category walks only its own events, in
// global order. Added by ALTER TABLE on files created before it (no rewrite of existing rows: the column is
// computed, only the index is built once).
const CATEGORY = "CASE WHEN instr(stream_id, '-') > 0 THEN substr(stream_id, 1, instr(stream_id, '-')) END";
const CATEGORY_COLUMN = `ALTER TABLE events ADD COLUMN category TEXT GENERATED ALWAYS AS (${CATEGORY}) VIRTUAL`;
const CATEGORY_INDEX = 'CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position)';

const COLUMNS = 'position, id, stream_id, stream_offset, type, data, metadata, recorded_at';

/**
 * The embedded event store: one SQLite file in WAL mode (readers never block the writer), one
 * `BEGIN IMMEDIATE` transaction per append, prepared statements only. Several instances — in this process
 * or others — may open the same file; the database write lock serialises their appends.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private closed = false;
  private readonly versionOf: Database.Statement<[string], { stream_offset: number }>;
  private readonly insert: Database.Statement<[string, string, number, string, string, string, string]>;
  private readonly selectStream: Database.Statement<[string, number, number], EventRow>;
  private readonly selectTail: Database.Statement<[string, number], EventRow>;
  private readonly dataVersion: Database.Statement<[], number>;
  /** `PRAGMA data_version` when the tail cache was last known to match the file (see `tailCache`). */
  private cachedDataVersion: number | undefined;
  /** `PRAGMA data_version` was read in this task of the event loop, and no other store of this process committed since. */
  private synced = false;
  /** The file's real path: the key of `openStores`. */
  private readonly fileKey: string;
  private readonly unsync = (): void => {
    this.synced = false;
  };
  private readonly tails: StreamTailCache | undefined;
  private readonly selectAll: Database.Statement<[number, number], EventRow>;
  private readonly selectStreamOfTypes: Database.Statement<[string, number, string, number], EventRow>;
  private readonly selectAllOfTypes: Database.Statement<[number, string, number], EventRow>;
  private readonly selectCategory: Database.Statement<[string, number, number], EventRow>;
  private readonly selectCategoryOfTypes: Database.Statement<[string, number, string, number], EventRow>;
  private readonly selectCategories: Database.Statement<[string, number, number], EventRow>;
  private readonly selectCategoriesOfTypes: Database.Statement<[string, number, string, number], EventRow>;
  private readonly selectCheckpoint: Database.Statement<[string], { position: number }>;
  private readonly upsertCheckpoint: Database.Statement<[string, number, string]>;
  private readonly appendInTransaction: Database.Transaction<
    (streamId: string, events: PreparedEvent[], expected: ExpectedVersion) => StoredEvent[]
  >;
  private readonly appendManyInTransaction: Database.Transaction<(many: PreparedAppend[]) => AppendResult[]>;
  private readonly appendGroup: Database.Transaction<(group: Pending[], settle: (() => void)[]) => void>;
  /** Runs the WAL checkpoints off the event loop (see `walCheckpoint`); undefined when SQLite runs them inline. */
  private checkpointer: WalCheckpointer | undefined;
  /**
   * The checkpoint worker's options until this store's first append starts it (then undefined): a worker thread is a
   * JavaScript runtime of its own (10–20 MB of RSS), and a store that appends nothing — a service that only reads its log, or
   * has no event to write yet — has no WAL worth a thread (ADR 0035). Until then SQLite checkpoints inline (its
   * default, every 1,000 WAL pages): what such a store writes is its named positions and leases (`saveCheckpoint`),
   * the same few pages over and over, which that copies in a moment. Other connections' appends are checkpointed by
   * their own stores' workers.
   */
  private checkpoints: WalCheckpointerOptions | undefined;
  /**
   * Known heads, by category ('' for the whole log): no event of it has a position above the value. Learnt from a
   * read that reached the end, raised by this connection's own commits, and forgotten with the tail cache when
   * another connection commits (`PRAGMA data_version`). A read after its head needs no query: a read model
   * catching up on a category nobody wrote to since (workspace owners, bindings) costs the freshness check only.
   */
  private readonly heads = new Map<string, number>();
  /** Reads answered from `heads` without a query (diagnostics, tests). */
  readonly headStats = { answered: 0 };
  /** Times `syncWithFile` read `PRAGMA data_version` (diagnostics, tests). */
  readonly fileChecks = { count: 0 };
  /** Appends waiting for the next group commit (see `groupCommit`). */
  private pending: Pending[] = [];
  /** The most urgent lane a commit of the pending group is scheduled in. */
  private commitLane: SliceLane = 'idle';
  /** Transactions committed and appends they carried (diagnostics, tests). */
  readonly commits = { transactions: 0, appends: 0 };

  static open(options: SqliteEventStoreOptions): SqliteEventStore {
    const file = options.file ?? (options.dataDir === undefined ? undefined : join(options.dataDir, SQLITE_EVENTS_FILE));
    if (file === undefined) throw new TypeError('SqliteEventStore.open needs `file` or `dataDir`');
    mkdirSync(dirname(file), { recursive: true });
    const tails = options.tailCache === false ? undefined : new StreamTailCache({ ...DEFAULT_STREAM_TAIL_CACHE, ...options.tailCache });
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    const checkpoints = options.walCheckpoint === false ? undefined : { busyTimeoutMs, ...options.walCheckpoint };
    return new SqliteEventStore(
      file,
      busyTimeoutMs,
      options.slices === false ? undefined : (options.slices ?? eventLoopSlices),
      options.groupCommit ?? true,
      tails,
      checkpoints,
    );
  }

  private constructor(
    readonly file: string,
    busyTimeoutMs: number,
    private readonly slices: EventLoopSlices | undefined,
    private readonly groupCommit: boolean,
    tails: StreamTailCache | undefined,
    checkpoints: WalCheckpointerOptions | undefined,
  ) {
    this.tails = tails;
    this.db = new Database(file, { timeout: busyTimeoutMs });
    try {
      this.db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a commit survives a crash of the process; a power cut may lose the last few
      // commits but never corrupts the file. The usual trade for an embedded default (no fsync per append).
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      this.db.exec(SCHEMA);
      this.migrate();
      this.checkpoints = checkpoints;
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.fileKey = file === ':memory:' ? `:memory:${Math.random()}` : realpathSync(file);
    const neighbours = openStores.get(this.fileKey) ?? new Set<SqliteEventStore>();
    openStores.set(this.fileKey, neighbours.add(this));
    this.versionOf = this.db.prepare('SELECT stream_offset FROM events WHERE stream_id = ? ORDER BY stream_offset DESC LIMIT 1');
    this.insert = this.db.prepare(
      'INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.selectStream = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND stream_offset >= ? ORDER BY stream_offset LIMIT ?`,
    );
    this.selectTail = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? ORDER BY stream_offset DESC LIMIT ?`);
    // Changes when another connection (this process or another) commits to the file, never for this one's commits.
    this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.selectAll = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    // Filters run in SQL, so a dropped row is never handed to JavaScript, let alone JSON-parsed. Types travel
    // as one JSON array parameter (json_each), so each shape is one prepared statement.
    const types = 'type IN (SELECT value FROM json_each(?))';
    this.selectStreamOfTypes = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND stream_offset >= ? AND ${types} ORDER BY stream_offset LIMIT ?`,
    );
    this.selectAllOfTypes = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? AND ${types} ORDER BY position LIMIT ?`);
    this.selectCategory = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE category = ? AND position > ? ORDER BY position LIMIT ?`);
    this.selectCategoryOfTypes = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE category = ? AND position > ? AND ${types} ORDER BY position LIMIT ?`,
    );
    // Several categories: one index seek per category (the IN list on the index's first column), merged by position.
    const categories = 'category IN (SELECT value FROM json_each(?))';
    this.selectCategories = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE ${categories} AND position > ? ORDER BY position LIMIT ?`);
    this.selectCategoriesOfTypes = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE ${categories} AND position > ? AND ${types} ORDER BY position LIMIT ?`,
    );
    this.selectCheckpoint = this.db.prepare('SELECT position FROM checkpoints WHERE name = ?');
    this.upsertCheckpoint = this.db.prepare(
      'INSERT INTO checkpoints (name, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at',
    );
    this.appendInTransaction = this.db.transaction(
      (streamId: string, events: PreparedEvent[], expected: ExpectedVersion): StoredEvent[] => {
        const actual = this.versionOf.get(streamId)?.stream_offset ?? -1;
        if (!versionMatches(expected, actual)) {
          // Often another writer's commit: the caller's next read (maybe in this task) looks at the file again.
          this.synced = false;
          throw new ConcurrencyError(streamId, expected, actual);
        }
        const recordedAt = new Date().toISOString();
        return events.map((event, index) => {
          const offset = actual + 1 + index;
          let position: number;
          try {
            position = Number(
              this.insert.run(event.id, streamId, offset, event.type, event.dataJson, event.metadataJson, recordedAt).lastInsertRowid,
            );
          } catch (error) {
            this.synced = false;
            throw translateConstraint(error, streamId, expected, actual, index, event.id);
          }
          return storedEvent(streamId, offset, position, event, recordedAt);
        });
      },
    );
    // Every batch of an appendMany, each checked against its stream as the batches before it left it. Inside a
    // group it is one SAVEPOINT (the batches' own are nested in it): any failure rolls back all of them.
    this.appendManyInTransaction = this.db.transaction((many: PreparedAppend[]): AppendResult[] =>
      many.map(({ streamId, events, expected }) => appendResult(this.appendInTransaction(streamId, events, expected))),
    );
    // Called inside a transaction, appendInTransaction runs in a SAVEPOINT: a failed append rolls back its own
    // events and the group goes on; each caller is settled only after the whole group committed.
    this.appendGroup = this.db.transaction((group: Pending[], settle: (() => void)[]): void => {
      for (const append of group) {
        if ('many' in append) {
          try {
            const results = this.appendManyInTransaction(append.many);
            settle.push(() => {
              this.appendedManyThrough(append.many, results);
              append.resolve(results);
            });
          } catch (error) {
            settle.push(() => append.reject(error));
          }
          continue;
        }
        try {
          const result = appendResult(this.appendInTransaction(append.streamId, append.events, append.expected));
          // Settled only once the group committed: a rolled-back append never reaches the tail cache.
          settle.push(() => {
            this.appendedThrough(append.streamId, append.events, result);
            append.resolve(result);
          });
        } catch (error) {
          settle.push(() => append.reject(error));
        }
      }
    });
  }

  async append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    this.assertOpen();
    const prepared = prepareBatch(streamId, events);
    const expected = options?.expectedVersion ?? 'any';
    assertExpectedVersion(expected);
    // better-sqlite3 rolls the transaction back when the function throws: all events or none.
    if (!this.groupCommit) return this.inSlice(() => this.commitOne(streamId, prepared, expected));
    // The first append of a group schedules its commit; the ones called before that commit runs join it. The
    // commit waits in its scheduler's lane (EventLoopSlices): a request joining a group a turn scheduled
    // schedules the commit again in its own lane, so it never waits behind background work (whichever runs
    // first commits the group; the other finds nothing pending).
    return new Promise<AppendResult>((resolve, reject) => this.enqueue({ streamId, events: prepared, expected, resolve, reject }));
  }

  async appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    this.assertOpen();
    if (!Array.isArray(appends)) throw new InvalidEventError('appends', 'must be an array');
    const many = appends.map(({ streamId, events, expectedVersion }): PreparedAppend => {
      const prepared = prepareBatch(streamId, events);
      const expected = expectedVersion ?? 'any';
      assertExpectedVersion(expected);
      return { streamId, events: prepared, expected };
    });
    if (many.length === 0) return [];
    if (!this.groupCommit) return this.inSlice(() => this.commitMany(many));
    return new Promise<AppendResult[]>((resolve, reject) => this.enqueue({ many, resolve, reject }));
  }

  /** Queues an append for the group commit (see `append`). */
  private enqueue(pending: Pending): void {
    this.pending.push(pending);
    const lane = currentLane();
    if (this.pending.length === 1 || URGENCY[lane] < URGENCY[this.commitLane]) {
      this.commitLane = lane;
      queueMicrotask(() => void this.inSlice(() => this.commitPending()).catch((error: unknown) => this.failPending(error)));
    }
  }

  private commitMany(many: PreparedAppend[]): AppendResult[] {
    const results = this.appendManyInTransaction.immediate(many);
    this.committed();
    this.appendedManyThrough(many, results);
    this.commits.transactions++;
    this.commits.appends += many.length;
    return results;
  }

  private appendedManyThrough(many: readonly PreparedAppend[], results: readonly AppendResult[]): void {
    many.forEach(({ streamId, events }, index) => this.appendedThrough(streamId, events, results[index] as AppendResult));
  }

  private commitOne(streamId: string, events: PreparedEvent[], expected: ExpectedVersion): AppendResult {
    this.startCheckpointer();
    const result = appendResult(this.appendInTransaction.immediate(streamId, events, expected));
    this.committed();
    this.appendedThrough(streamId, events, result);
    this.commits.transactions++;
    this.commits.appends++;
    return result;
  }

  /**
   * Commits every waiting append: one alone as before, several in one transaction. Also run before every read,
   * so a read sees each append that was called before it (program order), whether or not its commit ran yet.
   */
  private commitPending(): void {
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    if (group.length === 1) {
      const [only] = group as [Pending];
      try {
        if ('many' in only) only.resolve(this.commitMany(only.many));
        else only.resolve(this.commitOne(only.streamId, only.events, only.expected));
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    const settle: (() => void)[] = [];
    this.startCheckpointer();
    try {
      this.appendGroup.immediate(group, settle);
    } catch (error) {
      // The transaction itself failed (SQLITE_BUSY past the timeout, I/O): nothing of the group was written.
      for (const append of group) append.reject(error);
      return;
    }
    this.committed();
    this.commits.transactions++;
    this.commits.appends += group.reduce((sum, pending) => sum + batchesOf(pending), 0);
    for (const done of settle) done();
  }

  private failPending(error: unknown): void {
    const group = this.pending;
    this.pending = [];
    for (const append of group) append.reject(error);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { fromOffset, limit, types } = readStreamBounds(streamId, options);
    return this.inSlice(() => {
      this.commitPending();
      const tail = this.tailCovering(streamId, fromOffset);
      if (tail !== undefined) return rowsFromTail(tail, fromOffset, limit, types).map(fromRow);
      return (
        types !== undefined
          ? this.selectStreamOfTypes.all(streamId, fromOffset, JSON.stringify(types), limit ?? -1)
          : this.selectStream.all(streamId, fromOffset, limit ?? -1)
      ).map(fromRow);
    });
  }

  /** Reads answered by the tail cache and reads that went to SQLite (diagnostics, tests); undefined when it is off. */
  get tailCacheStats(): Readonly<{ hits: number; misses: number }> | undefined {
    return this.tails?.stats;
  }

  /**
   * The cached tail of the stream when it holds every event from `fromOffset` on, after making sure the cache
   * still matches the file; fills it from the database (the stream's newest rows) when it is missing or not full.
   * Undefined: the read goes to SQLite (cache off, or the read starts before the newest `eventsPerStream` events).
   */
  private tailCovering(streamId: string, fromOffset: number): StreamTail | undefined {
    const tails = this.freshTails();
    if (tails === undefined) return undefined;
    const cached = tails.covering(streamId, fromOffset);
    if (cached !== undefined) return cached;
    const known = tails.peek(streamId);
    // A full tail that does not reach back to fromOffset would be read again unchanged: this read is older history.
    if (known !== undefined && known.rows.length >= tails.eventsPerStream) return undefined;
    const filled = tails.fill(streamId, this.selectTail.all(streamId, tails.eventsPerStream));
    return fromOffset >= filled.from ? filled : undefined;
  }

  /** The tail cache (undefined when off), first emptied when another connection committed since the last check. */
  private freshTails(): StreamTailCache | undefined {
    if (this.tails === undefined) return undefined;
    this.syncWithFile();
    return this.tails;
  }

  /**
   * Forgets what another connection's commit since the last check may have made stale: the tails and the heads.
   * Once per task of the event loop: another process's or thread's commit can only be known to this one through
   * I/O, a message or a timer, each of which runs in a task of its own — and before the next one starts, the
   * tick queue has run `unsync`. A store of this process on the same file unsyncs its neighbours when it commits.
   * So a read never misses a commit it could know of, and a turn's reads in one task check the file once.
   */
  private syncWithFile(): void {
    if (this.synced) return;
    this.fileChecks.count++;
    const version = this.dataVersion.get();
    if (version === undefined || version !== this.cachedDataVersion) {
      this.tails?.clear();
      this.heads.clear();
      this.cachedDataVersion = version;
    }
    this.synced = true;
    process.nextTick(this.unsync);
  }

  /** After a commit: the other stores of this process on this file look at it again before their next read. */
  private committed(): void {
    const neighbours = openStores.get(this.fileKey);
    if (neighbours === undefined || neighbours.size === 1) return;
    for (const store of neighbours) if (store !== this) store.synced = false;
  }

  /** Whether the log certainly holds nothing of `keys` (categories, '' for all) after `afterPosition`. */
  private pastHeads(keys: readonly string[], afterPosition: number): boolean {
    return keys.every((key) => {
      const head = this.heads.get(key);
      return head !== undefined && head <= afterPosition;
    });
  }

  /** A read of `key` without a type filter that reached the end of the log: its last row (or its start) is the head. */
  private learnHead(key: string, afterPosition: number, rows: readonly EventRow[]): void {
    const head = rows.at(-1)?.position ?? afterPosition;
    const known = this.heads.get(key);
    if (known === undefined || head < known) this.heads.set(key, head);
  }

  /** A committed append extends the stream's cached tail (called after the commit, never for a rolled-back append). */
  private appendedThrough(streamId: string, events: readonly PreparedEvent[], result: AppendResult): void {
    const last = result.events.at(-1)?.position;
    if (last !== undefined) {
      const category = streamCategory(streamId);
      for (const key of category === undefined ? [''] : ['', category]) {
        const head = this.heads.get(key);
        if (head !== undefined && head < last) this.heads.set(key, last);
      }
    }
    if (this.tails === undefined) return;
    const rows = result.events.map((stored, index): EventRow => {
      const event = events[index];
      if (event === undefined) throw new Error(`appendedThrough: ${result.events.length} stored events for ${events.length} appended`);
      return {
        position: stored.position,
        id: stored.id,
        stream_id: streamId,
        stream_offset: stored.offset,
        type: stored.type,
        data: event.dataJson,
        metadata: event.metadataJson,
        recorded_at: stored.recordedAt,
      };
    });
    this.tails.appended(streamId, rows);
  }

  async readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { afterPosition, limit, categories, types } = readAllBounds(options);
    const max = limit ?? -1;
    if (categories?.length === 0) return [];
    return this.inSlice(() => {
      this.commitPending();
      this.syncWithFile();
      if (this.pastHeads(categories ?? [''], afterPosition)) {
        this.headStats.answered++;
        return [];
      }
      let rows: EventRow[];
      if (categories?.length === 1) {
        const [category] = categories as [string];
        rows =
          types === undefined
            ? this.selectCategory.all(category, afterPosition, max)
            : this.selectCategoryOfTypes.all(category, afterPosition, JSON.stringify(types), max);
      } else if (categories !== undefined) {
        const list = JSON.stringify(categories);
        rows =
          types === undefined
            ? this.selectCategories.all(list, afterPosition, max)
            : this.selectCategoriesOfTypes.all(list, afterPosition, JSON.stringify(types), max);
      } else {
        rows =
          types === undefined
            ? this.selectAll.all(afterPosition, max)
            : this.selectAllOfTypes.all(afterPosition, JSON.stringify(types), max);
      }
      // Only an unfiltered read of one category (or of the whole log) that stopped short of its limit saw the end.
      if (types === undefined && (categories === undefined || categories.length === 1) && (max < 0 || rows.length < max))
        this.learnHead(categories?.[0] ?? '', afterPosition, rows);
      return rows.map(fromRow);
    });
  }

  async streamVersion(streamId: string): Promise<number> {
    this.assertOpen();
    readStreamBounds(streamId, undefined);
    return this.inSlice(() => {
      this.commitPending();
      const cached = this.freshTails()?.peek(streamId);
      return cached !== undefined ? cached.version : (this.versionOf.get(streamId)?.stream_offset ?? -1);
    });
  }

  async loadCheckpoint(name: string): Promise<number> {
    this.assertOpen();
    assertCheckpointName(name);
    return this.inSlice(() => (this.commitPending(), this.selectCheckpoint.get(name)?.position ?? 0));
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.assertOpen();
    assertCheckpointName(name);
    assertCheckpointPosition(position);
    await this.inSlice(() => (this.commitPending(), this.upsertCheckpoint.run(name, position, new Date().toISOString())));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.checkpoints = undefined; // a worker is not started to checkpoint the last commits of a closing store
    this.commitPending(); // appends already called are written, as they were before group commit
    this.closed = true;
    const neighbours = openStores.get(this.fileKey);
    neighbours?.delete(this);
    if (neighbours?.size === 0) openStores.delete(this.fileKey);
    this.tails?.clear();
    this.heads.clear();
    await this.checkpointer?.close();
    this.db.close();
  }

  /**
   * What the checkpoint worker did so far (diagnostics, tests; all zero before the first append started it);
   * undefined when SQLite checkpoints inline.
   */
  get walCheckpointStats(): Readonly<WalCheckpointStats> | undefined {
    if (this.checkpoints !== undefined) return { runs: 0, pagesCopied: 0, busy: 0, maxMs: 0, finishes: 0, finishMaxMs: 0 };
    return this.checkpointer?.stats;
  }

  /** Starts the checkpoint worker before this store's first append (see `checkpoints`); then does nothing. */
  private startCheckpointer(): void {
    const options = this.checkpoints;
    if (options === undefined) return;
    this.checkpoints = undefined;
    this.checkpointer = new WalCheckpointer(
      this.file,
      options,
      () => this.finishCheckpoint(),
      (reason) => this.checkpointInline(reason),
    );
    this.db.pragma(`wal_autocheckpoint = ${this.checkpointer.backstopFrames}`);
  }

  /**
   * Copies the frames the worker's last pass could not (committed while it ran), so the next commit starts the WAL
   * over. In the background lane, behind requests: waiting longer (the idle lane) would leave it more frames to copy.
   */
  private finishCheckpoint(): Promise<boolean> {
    return inLane('background', () =>
      this.inSlice(() => {
        this.commitPending();
        const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as WalCheckpointRow[];
        return result !== undefined && result.busy === 0 && result.checkpointed === result.log;
      }),
    );
  }

  /** The checkpoint worker stopped on its own: SQLite checkpoints inline again, so the WAL stays bounded. */
  private checkpointInline(reason: string): void {
    this.checkpointer = undefined;
    if (this.closed) return;
    this.db.pragma('wal_autocheckpoint = 1000');
    process.emitWarning(`SqliteEventStore(${this.file}): ${reason}; checkpointing inline (SQLite's default) from now on`, {
      code: 'TENET_SQLITE_CHECKPOINT',
    });
  }

  /**
   * Runs one synchronous database call in the event loop's current slice, or after the loop served pending I/O
   * when the slice is used up (EventLoopSlices). Calls keep their order either way.
   */
  private async inSlice<T>(work: () => T): Promise<T> {
    const turn = this.slices?.enter();
    if (turn) await turn;
    const started = performance.now();
    try {
      this.assertOpen();
      return work();
    } finally {
      this.slices?.leave(performance.now() - started);
    }
  }

  /**
   * Brings a file written by an older version up to the current schema. Under the write lock, so two processes
   * opening one old file at once do not both add the column.
   */
  private migrate(): void {
    this.db
      .transaction(() => {
        const columns = this.db.prepare('PRAGMA table_xinfo(events)').all() as Array<{ name: string }>;
        if (!columns.some((column) => column.name === 'category')) this.db.exec(CATEGORY_COLUMN);
        this.db.exec(CATEGORY_INDEX);
      })
      .immediate();
  }

  private assertOpen(): void {
    if (this.closed) throw new EventLogUnavailableError(`SqliteEventStore(${this.file}) is closed`);
  }
}

function fromRow(row: EventRow): StoredEvent {
  return storedEvent(
    row.stream_id,
    row.stream_offset,
    row.position,
    { id: row.id, type: row.type, dataJson: row.data, metadataJson: row.metadata },
    row.recorded_at,
  );
}

function translateConstraint(
  error: unknown,
  streamId: string,
  expected: ExpectedVersion,
  actual: number,
  index: number,
  id: string,
): unknown {
  // Checked by shape, not instanceof: better-sqlite3's native addon binds SqliteError once per process, so
  // a second load of the JS module (Jest module registries, bundlers) throws a class instanceof cannot see.
  const sqliteError = error as { name?: unknown; code?: unknown; message?: unknown };
  if (sqliteError.name !== 'SqliteError' || sqliteError.code !== 'SQLITE_CONSTRAINT_UNIQUE' || typeof sqliteError.message !== 'string')
    return error;
  if (sqliteError.message.includes('events.id'))
    return new InvalidEventError(`events[${index}].id`, `already used by another event in the log ("${id}")`);
  // (stream_id, stream_offset) cannot clash while the write lock is held; if it ever does, it is a conflict.
  return new ConcurrencyError(streamId, expected, actual, sqliteError.message);
}
