import { EventEmitter } from 'node:events';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { sessionStreamId, type SessionEventData } from '@tenet/contracts';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import type { MessageBus, Subscription } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { newId } from '../ids.js';
import type { EventCreationDto, EventView } from './event.dto.js';

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

export function toEventView(event: StoredEvent): EventView {
  const logged = event.data as SessionEventData;
  const meta = event.metadata as { trace_id?: string; metadata?: Record<string, unknown> };
  return {
    id: event.id,
    source: logged.source,
    kind: event.type,
    offset: event.offset,
    creation_utc: event.recordedAt,
    correlation_id: logged.correlation_id,
    trace_id: meta.trace_id ?? logged.correlation_id,
    data: logged.data,
    metadata: meta.metadata ?? {},
    deleted: false,
  };
}

const matches = (filter: EventFilter) => (event: EventView): boolean =>
  event.offset >= filter.minOffset &&
  (filter.kinds === undefined || filter.kinds.includes(event.kind)) &&
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
  private subscription: Subscription | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = await this.bus.listen<{ offset: number }>(appendedSubject('*'), (_data, subject) => {
      this.wakeups.emit(subject.split('.')[3] ?? '');
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.stop();
  }

  async append(sessionId: string, input: EventCreationDto, correlationId = `corr_${newId(12)}`): Promise<EventView> {
    const data: SessionEventData = { session_id: sessionId, source: input.source, correlation_id: correlationId, data: eventData(input) };
    const metadata = { trace_id: correlationId, ...(input.metadata ? { metadata: input.metadata } : {}) };
    const result = await this.store.append(sessionStreamId(sessionId), [{ type: input.kind, data, metadata }]);
    await this.bus.notify(appendedSubject(sessionId), { offset: result.nextExpectedVersion });
    const [stored] = result.events;
    if (!stored) throw new Error('the event log returned no stored event for a one-event append');
    return toEventView(stored);
  }

  /**
   * Matching events from `minOffset`; when none exist yet, waits up to `waitMs` for one to be appended
   * (by this process or any other). Resolves `undefined` on timeout.
   */
  async list(sessionId: string, filter: EventFilter, waitMs: number, signal?: AbortSignal): Promise<EventView[] | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (signal?.aborted) return undefined;
      // Subscribe before reading, so an append between the read and the wait cannot be missed.
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      this.wakeups.once(sessionId, wake);
      try {
        const found = (await this.store.readStream(sessionStreamId(sessionId), { fromOffset: filter.minOffset })).map(toEventView).filter(matches(filter));
        const remaining = deadline - Date.now();
        if (found.length > 0 || waitMs === 0) return found;
        if (remaining <= 0) return undefined;
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        const aborted = new Promise<boolean>((resolve) => signal?.addEventListener('abort', (onAbort = () => resolve(true)), { once: true }));
        const timedOut = await Promise.race([woken.then(() => false), aborted, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), remaining)))]);
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        if (timedOut) return undefined;
      } finally {
        this.wakeups.off(sessionId, wake);
      }
    }
  }
}

function eventData(input: EventCreationDto): Record<string, unknown> {
  switch (input.kind) {
    case 'message':
      return { message: input.message, participant: input.participant ?? { display_name: input.source } };
    case 'status':
      return { status: input.status, data: (input.data as Record<string, unknown> | undefined) ?? {} };
    case 'tool':
      return { tool_calls: ((input.data as { tool_calls?: unknown } | undefined)?.tool_calls as unknown) ?? [] };
    case 'custom':
      return (input.data as Record<string, unknown> | undefined) ?? {};
  }
}
