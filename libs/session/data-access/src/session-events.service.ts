import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JOURNEY_TRANSITION_EVENT_TYPE, sessionStreamId, type SessionEventData } from '@tenet/contracts';
import {
  appendTogether,
  ConcurrencyError,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type StoredEvent,
  type StreamAppend,
} from '@tenet/event-store';
import type { MessageBus, Subscription } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { TURN_ERROR_TYPES, type TurnErrorType } from '@tenet/session-domain';
import { IdempotencyKeyReusedError, type IdempotencyKey, newId } from '@tenet/edge';
import { isDeleted, NO_EDITS, SessionsRepository, type SessionEventEdits, type SessionRecord } from './sessions.repository.js';
import type { EventView, SessionEventInput } from './event-view.js';
import { sessionActivity, type SessionActivity } from './session-activity.js';

/** Sessions whose idempotency keys are kept in memory (least recently posted to dropped first, then searched again). */
const KEY_INDEX_SESSIONS = 2_000;

interface IndexedKey {
  offset: number;
  fingerprint: string;
}

/** The idempotency keys of a session's events at offsets 0..searched: read from the log once, then only what was appended since. */
interface KeyIndex {
  searched: number;
  keys: Map<string, IndexedKey>;
}

/** Core-NATS wake-up subject (outside the durable tenet.v1 stream): "session X has new events". */
export const sessionAppendedSubject = (sessionId: string): string => `tenet.gateway.session.${sessionId}.appended`;
const appendedSubject = sessionAppendedSubject;

export interface EventFilter {
  minOffset: number;
  kinds?: string[];
  source?: string;
  correlationId?: string;
  traceId?: string;
}

/**
 * The event as the views show it: with its patched metadata, if any (the logged event is never rewritten). A
 * journey record (`journey_transition`, the journey engine's state) is shown in Parlant's `custom` kind, its data
 * typed by `type: "journey_transition"` (docs/events.md), so clients see every offset of the stream.
 */
export function toEventView(event: StoredEvent, edits: SessionEventEdits = NO_EDITS): EventView {
  const logged = event.data as SessionEventData;
  const meta = event.metadata as { trace_id?: string; metadata?: Record<string, unknown> };
  const journeyRecord = event.type === JOURNEY_TRANSITION_EVENT_TYPE;
  return {
    id: event.id,
    source: logged.source,
    kind: journeyRecord ? 'custom' : event.type,
    offset: event.offset,
    creation_utc: event.recordedAt,
    correlation_id: logged.correlation_id,
    trace_id: meta.trace_id ?? logged.correlation_id,
    data: journeyRecord ? { type: JOURNEY_TRANSITION_EVENT_TYPE, ...logged.data } : logged.data,
    metadata: edits.metadata[event.id] ?? meta.metadata ?? {},
    deleted: false,
  };
}

/**
 * The log's event types a `kinds` filter asks for: Parlant's kinds, plus `journey_transition` for the journey
 * records alone; `custom` takes them too, since that is the kind they are shown in.
 */
export function storedTypesFor(kinds: readonly string[]): string[] {
  return [...new Set(kinds.flatMap((kind) => (kind === 'custom' ? ['custom', JOURNEY_TRANSITION_EVENT_TYPE] : [kind])))];
}

/** Everything but `kinds`, which the read from the store applies (`storedTypesFor`). */
const matches =
  (filter: EventFilter) =>
  (event: EventView): boolean =>
    event.offset >= filter.minOffset &&
    (filter.source === undefined || event.source === filter.source) &&
    (filter.correlationId === undefined || event.correlation_id === filter.correlationId) &&
    (filter.traceId === undefined || event.trace_id === filter.traceId);

/**
 * Session events are the `session-<id>` stream of the event log; offsets are the stream offsets. Waiting
 * readers (long-poll, SSE) are woken by a push on the bus — in-process, or core NATS across gateway
 * processes — and then re-read the log; they never poll the store on a timer.
 */
@Injectable()
export class SessionEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly wakeups = new EventEmitter().setMaxListeners(0);
  /** Per session, the idempotency keys found in its stream up to the offset searched (see appendOnce). */
  private readonly keyIndexes = new LRUCache<string, KeyIndex>({ max: KEY_INDEX_SESSIONS });
  private subscription: Subscription | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly sessions: SessionsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = await this.bus.listen<{ offset: number }>(appendedSubject('*'), (_data, subject) => {
      this.wakeups.emit(subject.split('.')[3] ?? '');
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
  }

  async append(sessionId: string, input: SessionEventInput, correlationId = `corr_${newId(12)}`): Promise<EventView> {
    return this.write(sessionId, input, correlationId, 'any');
  }

  /**
   * Appends the event once per idempotency key: a retry with the same key returns the first event (same id
   * and offset) instead of writing another. The key is stored with the event in the log, so the answer holds
   * across restarts and gateway replicas; the append is conditional on the stream version that was searched,
   * so two concurrent requests with one key cannot both write. The keys already searched are remembered per
   * session (`KeyIndex`): a call reads only the events appended since, not the whole session again.
   */
  async appendOnce(
    sessionId: string,
    input: SessionEventInput,
    idempotency: IdempotencyKey,
  ): Promise<{ event: EventView; replayed: boolean }> {
    const streamId = sessionStreamId(sessionId);
    for (;;) {
      const index = this.keyIndexes.get(sessionId) ?? { searched: -1, keys: new Map<string, IndexedKey>() };
      const events = await this.store.readStream(streamId, { fromOffset: index.searched + 1 });
      for (const event of events) {
        const key = (event.metadata as { idempotency?: IdempotencyKey }).idempotency;
        // The first event with a key is its answer; a concurrent call may have indexed the same events already.
        if (key && !index.keys.has(key.key)) index.keys.set(key.key, { offset: event.offset, fingerprint: key.fingerprint });
      }
      index.searched = Math.max(index.searched, events.at(-1)?.offset ?? -1);
      this.keyIndexes.set(sessionId, index);
      const first = index.keys.get(idempotency.key);
      if (first) {
        if (first.fingerprint !== idempotency.fingerprint) throw new IdempotencyKeyReusedError(idempotency.key);
        const [stored] = await this.store.readStream(streamId, { fromOffset: first.offset, limit: 1 });
        if (!stored)
          throw new Error(`idempotency key ${idempotency.key} names offset ${first.offset} of ${streamId}, which the log does not hold`);
        return { event: toEventView(stored), replayed: true };
      }
      try {
        return { event: await this.write(sessionId, input, `corr_${newId(12)}`, index.searched, idempotency), replayed: false };
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error; // another append came first: search what it added
      }
    }
  }

  /**
   * Appends events of one correlation that are always written together (the agent's reply and its `ready`) in one
   * append — one write, all or none, consecutive offsets — and wakes long-polls once: the same events a client would
   * see from separate appends, for one transaction instead of several.
   */
  async appendAll(sessionId: string, inputs: readonly SessionEventInput[], correlationId: string): Promise<EventView[]> {
    const result = await this.store.append(
      sessionStreamId(sessionId),
      inputs.map((input) => newSessionEvent(sessionId, input, correlationId)),
    );
    await this.bus.notify(appendedSubject(sessionId), { offset: result.nextExpectedVersion });
    return result.events.map((stored) => toEventView(stored));
  }

  /**
   * Appends the event after `before` (other streams' records that must be written first, e.g. the turn's crash-recovery
   * record) in one transaction when the store can — all or none — else one after another, `before` first, as
   * separate appends would be (`appendTogether`). Wakes long-polls like `append`.
   */
  async appendAfter(
    sessionId: string,
    before: readonly StreamAppend[],
    input: SessionEventInput,
    correlationId: string,
  ): Promise<EventView> {
    const results = await appendTogether(this.store, [
      ...before,
      { streamId: sessionStreamId(sessionId), events: [newSessionEvent(sessionId, input, correlationId)] },
    ]);
    const result = results.at(-1);
    const stored = result?.events[0];
    if (!result || !stored) throw new Error('the event log returned no stored event for a one-event append');
    await this.bus.notify(appendedSubject(sessionId), { offset: result.nextExpectedVersion });
    return toEventView(stored);
  }

  private async write(
    sessionId: string,
    input: SessionEventInput,
    correlationId: string,
    expectedVersion: ExpectedVersion,
    idempotency?: IdempotencyKey,
  ): Promise<EventView> {
    const result = await this.store.append(sessionStreamId(sessionId), [newSessionEvent(sessionId, input, correlationId, idempotency)], {
      expectedVersion,
    });
    await this.bus.notify(appendedSubject(sessionId), { offset: result.nextExpectedVersion });
    const [stored] = result.events;
    if (!stored) throw new Error('the event log returned no stored event for a one-event append');
    return toEventView(stored);
  }

  /**
   * Appends records that are not client-visible events (the journey engine's `journey_transition`s) to the
   * session stream, in order, and wakes long-polls. `expectedVersion` guards a writer outside the turn's lease
   * (a journey timer) against a concurrent turn: on conflict nothing is written and the caller re-decides.
   */
  async appendRecords(
    sessionId: string,
    records: readonly { type: string; data: unknown }[],
    expectedVersion: ExpectedVersion = 'any',
  ): Promise<void> {
    const result = await this.store.append(
      sessionStreamId(sessionId),
      records.map((r) => ({ type: r.type, data: r.data })),
      { expectedVersion },
    );
    await this.bus.notify(appendedSubject(sessionId), { offset: result.nextExpectedVersion });
  }

  /**
   * Matching events from `minOffset`; when none exist yet, waits up to `waitMs` for one to be appended
   * (by this process or any other). Resolves `undefined` on timeout. `record`: the session's record as the caller
   * has just read it (the long-poll checks the session exists), used for the first read instead of reading it
   * again; after a wait the record is read afresh (an edit may have come with the wake-up).
   */
  async list(
    sessionId: string,
    filter: EventFilter,
    waitMs: number,
    signal?: AbortSignal,
    record?: SessionRecord,
  ): Promise<EventView[] | undefined> {
    const deadline = Date.now() + waitMs;
    let known = record;
    for (;;) {
      if (signal?.aborted) return undefined;
      // Subscribe before reading, so an append between the read and the wait cannot be missed.
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      this.wakeups.once(sessionId, wake);
      try {
        const found = await this.visible(sessionId, filter, known);
        known = undefined;
        const remaining = deadline - Date.now();
        if (found.length > 0 || waitMs === 0) return found;
        if (remaining <= 0) return undefined;
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        const aborted = new Promise<boolean>((resolve) =>
          signal?.addEventListener('abort', (onAbort = () => resolve(true)), { once: true }),
        );
        const timedOut = await Promise.race([
          woken.then(() => false),
          aborted,
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), remaining))),
        ]);
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        if (timedOut) return undefined;
      } finally {
        this.wakeups.off(sessionId, wake);
      }
    }
  }

  /** One event as the views show it; `undefined` when it does not exist or was deleted. */
  async get(sessionId: string, eventId: string): Promise<EventView | undefined> {
    const edits = (await this.sessions.get(sessionId))?.edits ?? NO_EDITS;
    // Event ids are the log's; the session stream is scanned (no id index per stream in the port).
    const stored = (await this.store.readStream(sessionStreamId(sessionId))).find((event) => event.id === eventId);
    return stored && !isDeleted(edits, stored.offset) ? toEventView(stored, edits) : undefined;
  }

  /** Matching events from `filter.minOffset`, without deleted ones and with patched metadata. */
  private async visible(sessionId: string, filter: EventFilter, known?: SessionRecord): Promise<EventView[]> {
    // `kinds` are event types: the store drops the other kinds before decoding them (a long-poll for `status`).
    const read = { fromOffset: filter.minOffset, ...(filter.kinds ? { types: storedTypesFor(filter.kinds) } : {}) };
    const [record, events] = await Promise.all([
      known ?? this.sessions.get(sessionId),
      this.store.readStream(sessionStreamId(sessionId), read),
    ]);
    const edits = record?.edits ?? NO_EDITS;
    return events
      .filter((event) => !isDeleted(edits, event.offset))
      .map((event) => toEventView(event, edits))
      .filter(matches(filter));
  }

  /** What the session has seen so far (messages, tokens, its journey), from the records a view counts. */
  async activity(sessionId: string, createdAt: string): Promise<SessionActivity> {
    const [record, events] = await Promise.all([
      this.sessions.get(sessionId),
      this.store.readStream(sessionStreamId(sessionId), { types: ['message', 'status', JOURNEY_TRANSITION_EVENT_TYPE] }),
    ]);
    const edits = record?.edits ?? NO_EDITS;
    return sessionActivity(
      events.filter((event) => !isDeleted(edits, event.offset)),
      createdAt,
    );
  }

  /** The session stream's length now: the end of a deletion asked for at this moment. */
  async length(sessionId: string): Promise<number> {
    return (await this.store.streamVersion(sessionStreamId(sessionId))) + 1;
  }
}

/** A client-visible event as the session stream stores it. */
function newSessionEvent(sessionId: string, input: SessionEventInput, correlationId: string, idempotency?: IdempotencyKey): NewEvent {
  const data: SessionEventData = { session_id: sessionId, source: input.source, correlation_id: correlationId, data: eventData(input) };
  const metadata = {
    trace_id: correlationId,
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(idempotency ? { idempotency } : {}),
  };
  return { type: input.kind, data, metadata };
}

function eventData(input: SessionEventInput): Record<string, unknown> {
  switch (input.kind) {
    case 'message':
      return {
        message: input.message,
        participant: input.participant ?? { display_name: input.source },
        ...messageSources(input),
        ...failureType(input),
        ...messageIntent(input),
      };
    case 'status':
      return { status: input.status, data: (input.data as Record<string, unknown> | undefined) ?? {} };
    case 'tool':
      return { tool_calls: ((input.data as { tool_calls?: unknown } | undefined)?.tool_calls as unknown) ?? [] };
    case 'custom':
      return (input.data as Record<string, unknown> | undefined) ?? {};
  }
}

/** The agent's failure reply says what kind of failure ended the turn (`data.error_type`, one of TURN_ERROR_TYPES). */
function failureType(input: SessionEventInput): { error_type?: TurnErrorType } {
  const type = (input.data as { error_type?: unknown } | undefined)?.error_type;
  return input.source === 'ai_agent' && (TURN_ERROR_TYPES as readonly unknown[]).includes(type)
    ? { error_type: type as TurnErrorType }
    : {};
}

/** An agent message's intent (docs/data-model.md#intents): `{ name, confidence }`, kept when it has them. */
function messageIntent(input: SessionEventInput): { intent?: unknown } {
  const intent = (input.data as { intent?: { name?: unknown; confidence?: unknown } } | undefined)?.intent;
  return input.source !== 'customer' && typeof intent?.name === 'string' && typeof intent.confidence === 'number' ? { intent } : {};
}

/** An agent message's knowledge citations (`data.sources`, docs/data-model.md#retrieval), kept when given as a list of objects. */
function messageSources(input: SessionEventInput): { sources?: unknown[] } {
  const sources = (input.data as { sources?: unknown } | undefined)?.sources;
  return input.source !== 'customer' &&
    Array.isArray(sources) &&
    sources.length > 0 &&
    sources.every((s) => typeof s === 'object' && s !== null)
    ? { sources }
    : {};
}
