import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { VARIABLES, type TenetConfig } from '@tenet/config';
import { SESSION_MODE_CHANGED_EVENT_TYPE, sessionMetaStreamId, type SessionModeChangedData } from '@tenet/contracts';
import { ConcurrencyError, inLane, type EventStore, type StoredEvent } from '@tenet/event-store';
import { EVENT_STORE, TENET_CONFIG } from '@tenet/platform-runtime';
import { decide, evolve as evolveLifecycle, initialSessionState, type SessionEvent, type SessionState } from '@tenet/session-domain';
import { StreamCatalog, StreamFoldCache, type IdempotencyKey } from '@tenet/edge';
import type { SessionView } from './session-view.js';
import { foldSessionIndexEntry, type SessionIndexEntry } from './session-index.js';

/** Session records live in `sessionmeta-<id>`; the conversation itself is the `session-<id>` stream. */
export const SESSION_META_PREFIX = 'sessionmeta-';
/** Events per read of the sessions catalog (see the constructor). */
export const SESSIONS_PAGE = 200;

/**
 * The session as its `SessionOpened` record stores it. `config_revision` 2 (ADR 0030) marks records whose
 * `config.auto_extract` is the tri-state (true / false / null); before it only false could be stored, and it meant
 * "the agent decides" — null today — so older records are read that way. Never on the wire.
 */
type StoredView = Omit<SessionView, 'state' | 'status'> & { config_revision?: number };

export const SESSION_CONFIG_REVISION = 2;

/** An older record's `auto_extract: false` meant "the agent decides" (null): see StoredView. */
const upcastOpened = (view: StoredView): StoredView =>
  (view.config_revision ?? 1) >= SESSION_CONFIG_REVISION ? view : { ...view, config: { ...view.config, auto_extract: null } };

export type SessionOpened = { type: 'SessionOpened'; data: StoredView };
/** Fields a PATCH changed, with their new values (metadata and labels already merged). */
export type SessionUpdated = {
  type: 'SessionUpdated';
  data: Partial<Pick<StoredView, 'title' | 'customer_id' | 'agent_id' | 'metadata' | 'labels' | 'consumption_offsets'>>;
};
export type SessionModeChanged = { type: typeof SESSION_MODE_CHANGED_EVENT_TYPE; data: SessionModeChangedData };
/**
 * Tombstone: the session's events from `min_offset` up to (not including) `before_offset` — the stream's
 * length when the delete was asked — are deleted from every view. The events themselves stay in the log.
 */
export type SessionEventsDeleted = { type: 'SessionEventsDeleted'; data: { min_offset: number; before_offset: number } };
/** A metadata patch of one session event, as Parlant allows (the event itself is never rewritten). */
export type SessionEventPatched = { type: 'SessionEventPatched'; data: { event_id: string; metadata: Record<string, unknown> } };

/** The session is deleted from every view (its streams stay in the log); published as `session.deleted`. */
export type SessionDeleted = { type: 'SessionDeleted'; data: { session_id?: string; agent_id?: string; customer_id?: string } };

/** The tombstone of a session, naming it for the published `session.deleted`. */
export const sessionDeleted = ({ view }: SessionRecord): SessionDeleted => ({
  type: 'SessionDeleted',
  data: { session_id: view.id, agent_id: view.agent_id, customer_id: view.customer_id },
});

export type SessionRecordEvent =
  SessionEvent | SessionDeleted | SessionUpdated | SessionModeChanged | SessionEventsDeleted | SessionEventPatched;

/** How the views see the session's (append-only) event stream: deleted ranges and patched metadata. */
export interface SessionEventEdits {
  deleted: readonly { from: number; to: number }[];
  metadata: Readonly<Record<string, Record<string, unknown>>>;
}

export interface SessionRecord {
  view: StoredView;
  lifecycle: SessionState;
  edits: SessionEventEdits;
  version: number;
}

export const NO_EDITS: SessionEventEdits = { deleted: [], metadata: {} };

/** Whether the event at `offset` is hidden by a tombstone. */
export const isDeleted = (edits: SessionEventEdits, offset: number): boolean =>
  edits.deleted.some((range) => offset >= range.from && offset < range.to);

export function foldSessionRecord(
  current: SessionRecord | undefined,
  event: Pick<StoredEvent, 'type' | 'data' | 'offset'>,
): SessionRecord | undefined {
  if (event.type === 'SessionOpened')
    return { view: upcastOpened((event as SessionOpened).data), lifecycle: initialSessionState(), edits: NO_EDITS, version: event.offset };
  if (!current) return undefined;
  const version = event.offset;
  switch (event.type) {
    case 'SessionDeleted':
      return undefined;
    case 'SessionUpdated':
      return { ...current, view: { ...current.view, ...(event as SessionUpdated).data }, version };
    case SESSION_MODE_CHANGED_EVENT_TYPE:
      return { ...current, view: { ...current.view, mode: (event as SessionModeChanged).data.mode }, version };
    case 'SessionEventsDeleted': {
      const { min_offset, before_offset } = (event as SessionEventsDeleted).data;
      return {
        ...current,
        edits: { ...current.edits, deleted: [...current.edits.deleted, { from: min_offset, to: before_offset }] },
        version,
      };
    }
    case 'SessionEventPatched': {
      const { event_id, metadata } = (event as SessionEventPatched).data;
      return { ...current, edits: { ...current.edits, metadata: { ...current.edits.metadata, [event_id]: metadata } }, version };
    }
    default:
      return { ...current, lifecycle: evolveLifecycle(current.lifecycle, event as unknown as SessionEvent), version };
  }
}

export interface SessionFilter {
  agentId?: string | undefined;
  customerId?: string | undefined;
  labels?: readonly string[] | undefined;
}

/** Attempts of one change against writers in other processes (each after a pause of up to 2 × attempt ms, at most 50). */
const CHANGE_ATTEMPTS = 40;

const matchesFilter =
  (filter: SessionFilter) =>
  (entry: SessionIndexEntry): boolean =>
    (filter.agentId === undefined || entry.agent_id === filter.agentId) &&
    (filter.customerId === undefined || entry.customer_id === filter.customerId) &&
    (filter.labels === undefined || filter.labels.every((label) => entry.labels.includes(label)));

/** Oldest first: creation time, then id (the order of the list and of its page cursor). */
const oldestFirst = (a: SessionIndexEntry, b: SessionIndexEntry): number =>
  a.creation_utc.localeCompare(b.creation_utc) || a.id.localeCompare(b.id);

@Injectable()
export class SessionsRepository {
  /** Every live session as the list needs it (SessionIndexEntry: ids, creation time, filters), not its record. */
  private readonly catalog: StreamCatalog<SessionIndexEntry>;
  /**
   * Session records by `sessionmeta-<id>` version: the stream gains a `SessionActivated` per customer message,
   * and a read folds only what was appended since the cached version, so it costs the same on a long session.
   * At most TENET_SESSION_CACHE_SIZE sessions, least recently read dropped first and folded from the log again
   * when next read.
   */
  private readonly records: StreamFoldCache<SessionRecord>;
  /** The change of each session in progress in this process (the next one waits for it). */
  private readonly changing = new Map<string, Promise<void>>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() @Inject(TENET_CONFIG) settings?: TenetConfig,
  ) {
    // Small pages: the start-up timer re-arm folds this whole category at idle priority, and a turn's store call
    // that arrives meanwhile waits for at most one page.
    this.catalog = new StreamCatalog(store, SESSION_META_PREFIX, foldSessionIndexEntry, SESSIONS_PAGE);
    this.records = new StreamFoldCache(
      store,
      foldSessionRecord,
      settings?.get('TENET_SESSION_CACHE_SIZE') ?? VARIABLES.TENET_SESSION_CACHE_SIZE.fallback,
    );
  }

  /** Sessions whose records are cached right now (tests, diagnostics): never more than TENET_SESSION_CACHE_SIZE. */
  get cachedRecords(): number {
    return this.records.size;
  }

  /** Opens the session and starts its lifecycle in one atomic append. Throws SESSION.INVALID_CONFIG. */
  async open(
    view: SessionOpened['data'],
    nowMs: number,
    idempotency?: IdempotencyKey,
  ): Promise<{ record: SessionRecord; started: SessionEvent[] }> {
    const started = decide(
      {
        type: 'StartSession',
        sessionId: view.id,
        agentId: view.agent_id,
        config: view.config,
        ...(view.expires_at !== undefined ? { expiresAt: Date.parse(view.expires_at) } : {}),
        now: nowMs,
      },
      initialSessionState(),
    );
    const result = await this.store.append(
      sessionMetaStreamId(view.id),
      [{ type: 'SessionOpened', data: view, ...(idempotency ? { metadata: { idempotency } } : {}) }, ...started],
      { expectedVersion: 'no_stream' },
    );
    const record = result.events.reduce<SessionRecord | undefined>(foldSessionRecord, undefined);
    if (!record) throw new Error(`session ${view.id} did not fold from its own opening events`);
    return { record, started };
  }

  /** The idempotency key (and body fingerprint) the session was opened with, if any. */
  async openedWith(id: string): Promise<IdempotencyKey | undefined> {
    const [opened] = await this.store.readStream(SESSION_META_PREFIX + id, { limit: 1 });
    return (opened?.metadata as { idempotency?: IdempotencyKey } | undefined)?.idempotency;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    return (await this.records.read(sessionMetaStreamId(id))).state;
  }

  /** Every session matching the filter, oldest first (creation time, then id), as the index has it: read the records with `recordsOf`. */
  async entries(filter: SessionFilter = {}): Promise<SessionIndexEntry[]> {
    return (await this.catalog.all()).filter(matchesFilter(filter)).sort(oldestFirst);
  }

  /** The records of `entries`, in their order; a session deleted since is left out. One at a time: reads of the log. */
  async recordsOf(entries: readonly SessionIndexEntry[]): Promise<SessionRecord[]> {
    const records: SessionRecord[] = [];
    for (const entry of entries) {
      const record = await this.get(entry.id);
      if (record) records.push(record);
    }
    return records;
  }

  /** Every session matching the filter, oldest first (creation time, then id). */
  async list(filter: SessionFilter = {}): Promise<SessionRecord[]> {
    return this.recordsOf(await this.entries(filter));
  }

  /** Appends events decided against `record` (optimistic on its version). */
  async record(id: string, record: SessionRecord, events: SessionRecordEvent[]): Promise<void> {
    if (events.length > 0) await this.store.append(sessionMetaStreamId(id), events, { expectedVersion: record.version });
  }

  /**
   * Read, decide, append — retried from a fresh read when another writer appended first. `decide` returns
   * the events to append and a result; it may throw to refuse. Resolves `undefined` for an unknown session.
   *
   * Changes of one session are serialized within this process (a busy session — many events a second — would
   * otherwise race itself), and a conflict with another process is retried after a short random pause, so two
   * gateways writing one session converge instead of exhausting their attempts against each other. Changes run
   * in the request lane of the event-loop slices (EventLoopSlices), whoever calls: requests wait for them.
   */
  async change<R>(
    id: string,
    decideChange: (
      record: SessionRecord,
    ) => Promise<{ events: SessionRecordEvent[]; result: R }> | { events: SessionRecordEvent[]; result: R },
  ): Promise<{ before: SessionRecord; events: SessionRecordEvent[]; result: R } | undefined> {
    const previous = this.changing.get(id) ?? Promise.resolve();
    // Request lane whoever calls (a priority ceiling): the next customer POST's activity waits behind the turn's
    // own change (AwaitingInput, right after `ready`); run in the turn's background lane, that change queued
    // behind every other turn's store calls and held the POST (~60 ms of its ~85 ms under 50 sessions).
    const run = inLane('foreground', () => previous.then(() => this.changeNow(id, decideChange)));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.changing.set(id, tail);
    void tail.then(() => {
      if (this.changing.get(id) === tail) this.changing.delete(id);
    });
    return run;
  }

  private async changeNow<R>(
    id: string,
    decideChange: (
      record: SessionRecord,
    ) => Promise<{ events: SessionRecordEvent[]; result: R }> | { events: SessionRecordEvent[]; result: R },
  ): Promise<{ before: SessionRecord; events: SessionRecordEvent[]; result: R } | undefined> {
    for (let attempt = 0; ; attempt++) {
      const before = await this.get(id);
      if (!before) return undefined;
      const { events, result } = await decideChange(before);
      try {
        await this.record(id, before, events);
        return { before, events, result };
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || attempt >= CHANGE_ATTEMPTS - 1) throw error;
        await sleep(Math.random() * Math.min(50, 2 * (attempt + 1)));
      }
    }
  }

  async delete(id: string, record: SessionRecord): Promise<void> {
    await this.record(id, record, [sessionDeleted(record)]);
  }
}

/** The event switching `record` to `mode` (none when it is already in it); `journeyId` names a failed journey's hand-off. */
export function modeChange(
  record: SessionRecord,
  mode: SessionModeChangedData['mode'],
  reason: SessionModeChangedData['reason'],
  guidelineId?: string,
  journeyId?: string,
): SessionModeChanged[] {
  if (record.view.mode === mode) return [];
  const { id, agent_id, customer_id } = record.view;
  return [
    {
      type: SESSION_MODE_CHANGED_EVENT_TYPE,
      data: {
        session_id: id,
        agent_id,
        customer_id,
        mode,
        previous_mode: record.view.mode,
        reason,
        ...(guidelineId !== undefined ? { guideline_id: guidelineId } : {}),
        ...(journeyId !== undefined ? { journey_id: journeyId } : {}),
      },
    },
  ];
}
