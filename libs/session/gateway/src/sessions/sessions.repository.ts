import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { decide, evolve as evolveLifecycle, initialSessionState, type SessionEvent, type SessionState } from '@tenet/session-domain';
import { StreamCatalog } from '../catalog/stream-catalog.js';
import { StreamFoldCache } from '../catalog/stream-fold-cache.js';
import type { IdempotencyKey } from '../http/idempotency.js';
import type { SessionView } from './session.dto.js';

/** Session records live in `sessionmeta-<id>`; the conversation itself is the `session-<id>` stream. */
export const SESSION_META_PREFIX = 'sessionmeta-';

export type SessionOpened = { type: 'SessionOpened'; data: Omit<SessionView, 'state'> };

export interface SessionRecord {
  view: Omit<SessionView, 'state'>;
  lifecycle: SessionState;
  version: number;
}

export function foldSessionRecord(current: SessionRecord | undefined, event: Pick<StoredEvent, 'type' | 'data' | 'offset'>): SessionRecord | undefined {
  if (event.type === 'SessionOpened') return { view: (event as SessionOpened).data, lifecycle: initialSessionState(), version: event.offset };
  if (!current) return undefined;
  if (event.type === 'SessionDeleted') return undefined;
  return { ...current, lifecycle: evolveLifecycle(current.lifecycle, event as unknown as SessionEvent), version: event.offset };
}

@Injectable()
export class SessionsRepository {
  private readonly catalog: StreamCatalog<SessionRecord>;
  /**
   * Session records by `sessionmeta-<id>` version: the stream gains a `SessionActivated` per customer message,
   * and a read folds only what was appended since the cached version, so it costs the same on a long session.
   */
  private readonly records: StreamFoldCache<SessionRecord>;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    this.catalog = new StreamCatalog(store, SESSION_META_PREFIX, foldSessionRecord);
    this.records = new StreamFoldCache(store, foldSessionRecord);
  }

  /** Opens the session and starts its lifecycle in one atomic append. Throws SESSION.INVALID_CONFIG. */
  async open(view: SessionOpened['data'], nowMs: number, idempotency?: IdempotencyKey): Promise<{ record: SessionRecord; started: SessionEvent[] }> {
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
    const result = await this.store.append(SESSION_META_PREFIX + view.id, [{ type: 'SessionOpened', data: view, ...(idempotency ? { metadata: { idempotency } } : {}) }, ...started], { expectedVersion: 'no_stream' });
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
    return (await this.records.read(SESSION_META_PREFIX + id)).state;
  }

  list(): Promise<SessionRecord[]> {
    return this.catalog.all();
  }

  /** Appends lifecycle events decided against `record` (optimistic on its version). */
  async record(id: string, record: SessionRecord, events: SessionEvent[]): Promise<void> {
    if (events.length > 0) await this.store.append(SESSION_META_PREFIX + id, events, { expectedVersion: record.version });
  }

  async delete(id: string, record: SessionRecord): Promise<void> {
    await this.store.append(SESSION_META_PREFIX + id, [{ type: 'SessionDeleted', data: {} }], { expectedVersion: record.version });
  }
}
