import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  DELIVERY_STATUSES,
  earlierPending,
  evolveOutbox,
  formatFor,
  OUTBOX_PREFIX,
  outboxStream,
  splitMessage,
  type DeliveryEntry,
  type Outbox,
  type OutboxEvent,
} from '@tenet/channels-domain';
import { StreamCatalog, StreamFoldCache, type EventStore } from '@tenet/event-store';
import { EVENT_STORE, SCHEDULER } from '@tenet/platform-runtime';
import { NonRetryableJobError, type JobContext, type JobFailure, type Scheduler } from '@tenet/scheduling';
import { AdapterRegistry } from '../adapters/adapter-registry.js';
import { DeliveryError, RateLimitedError, type ChannelAdapter } from '../adapters/channel-adapter.port.js';
import { CHANNELS_CONFIG, type ChannelsConfig } from '../channels.config.js';
import { ChannelMetrics } from '../channels.metrics.js';
import { ChannelsRepository } from '../channels/channels.repository.js';
import { ConversationsRepository, type Conversation } from '../inbound/conversations.repository.js';
import { sleep } from '@tenet/messaging';

export { DELIVERY_STATUSES };
export const DELIVERY_QUEUE = 'channel-delivery';
/** How long a message waits for the earlier messages of its conversation before its attempt counts as failed. */
const ORDER_WAIT_MS = 60_000;

interface DeliveryJob {
  session_id: string;
  event_id: string;
}

export interface DeliveryView {
  event_id: string;
  session_id: string;
  status: DeliveryEntry['status'];
  source: string;
  parts_sent: number;
  attempts: number;
  last_error: string | null;
  occurred_at: string;
  settled_at: string | null;
}

/** An agent (or human-agent) message of a channel's session, as the session topic published it. */
export interface AgentMessage {
  event_id: string;
  session_id: string;
  offset: number;
  source: string;
  text: string;
  occurred_at: string;
}

/**
 * Delivery of agent messages to the platform (ADR 0025): each message is queued in its conversation's outbox in
 * the event log (idempotent by event id) and delivered by a job whose id is the event id (BullMQ in distributed
 * mode, the in-process scheduler all-in-one). A job delivers only after the earlier messages of its conversation
 * are settled, resumes after the parts already sent, waits out a platform's 429 retry-after, and gives up after
 * the configured attempts — then the delivery is `failed`, listed and retryable.
 */
@Injectable()
export class DeliveryService implements OnApplicationBootstrap {
  private readonly logger = new Logger('ChannelDelivery');
  private readonly outboxes: StreamFoldCache<Outbox>;
  private readonly all: StreamCatalog<Outbox>;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    private readonly channels: ChannelsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly adapters: AdapterRegistry,
    private readonly metrics: ChannelMetrics,
  ) {
    this.outboxes = new StreamFoldCache(store, evolveOutbox);
    this.all = new StreamCatalog(store, OUTBOX_PREFIX, evolveOutbox);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<DeliveryJob>(DELIVERY_QUEUE, (job) => this.deliver(job), {
      concurrency: 8,
      onFailed: (failure) => this.givenUp(failure),
    });
    // Deliveries owed from before a restart (a job lost with an in-process scheduler, or never scheduled): a pending
    // job with the same id makes this a no-op.
    for (const outbox of await this.all.all()) {
      for (const entry of Object.values(outbox.entries))
        if (entry.status === 'queued') await this.schedule(outbox.session_id, entry.event_id);
    }
  }

  /** Queues an agent message of a channel conversation (a repeat of the same event is a no-op). */
  async enqueue(conversation: Conversation, message: AgentMessage): Promise<void> {
    const channel = await this.channels.find(conversation.connection_id);
    // A pull channel's client reads the conversation itself (the web widget); a deleted channel has nobody to deliver to.
    if (!channel || this.adapters.of(channel.kind).pull) return;
    const { state } = await this.outboxes.read(outboxStream(message.session_id));
    if (!state?.entries[message.event_id]) {
      await this.append(message.session_id, [
        {
          type: 'DeliveryQueued',
          data: {
            session_id: message.session_id,
            connection_id: conversation.connection_id,
            event_id: message.event_id,
            offset: message.offset,
            source: message.source,
            text: message.text,
            occurred_at: message.occurred_at,
          },
        },
      ]);
    }
    await this.schedule(message.session_id, message.event_id);
  }

  async list(connectionId: string, status?: DeliveryEntry['status']): Promise<DeliveryView[]> {
    const views: DeliveryView[] = [];
    for (const outbox of await this.all.all()) {
      if (outbox.connection_id !== connectionId) continue;
      for (const e of Object.values(outbox.entries)) {
        if (status !== undefined && e.status !== status) continue;
        views.push({
          event_id: e.event_id,
          session_id: outbox.session_id,
          status: e.status,
          source: e.source,
          parts_sent: e.parts_sent,
          attempts: e.attempts,
          last_error: e.last_error,
          occurred_at: e.occurred_at,
          settled_at: e.settled_at,
        });
      }
    }
    return views.sort((a, b) => (a.occurred_at < b.occurred_at ? -1 : a.occurred_at > b.occurred_at ? 1 : 0));
  }

  /** A failed delivery of this channel queued again; undefined when there is no such failed delivery. */
  async retry(connectionId: string, eventId: string): Promise<DeliveryView | undefined> {
    const failed = (await this.list(connectionId, 'failed')).find((d) => d.event_id === eventId);
    if (!failed) return undefined;
    await this.append(failed.session_id, [{ type: 'DeliveryRetried', data: { event_id: eventId } }]);
    await this.schedule(failed.session_id, eventId);
    return { ...failed, status: 'queued', settled_at: null };
  }

  private schedule(sessionId: string, eventId: string): Promise<unknown> {
    return this.scheduler.schedule<DeliveryJob>({
      queue: DELIVERY_QUEUE,
      jobId: eventId,
      data: { session_id: sessionId, event_id: eventId },
      attempts: this.config.deliveryAttempts,
      backoff: { type: 'exponential', delayMs: 1000 },
    });
  }

  private async deliver(job: JobContext<DeliveryJob>): Promise<void> {
    const { session_id: sessionId, event_id: eventId } = job.data;
    let outbox = (await this.outboxes.read(outboxStream(sessionId))).state;
    let entry = outbox?.entries[eventId];
    if (!outbox || !entry || entry.status !== 'queued') return; // delivered (or given up) already: exactly once
    const deadline = Date.now() + ORDER_WAIT_MS;
    while (earlierPending(outbox, entry).length > 0) {
      if (Date.now() > deadline) throw new Error(`an earlier message of session ${sessionId} is still being delivered`);
      await sleep(200);
      outbox = (await this.outboxes.read(outboxStream(sessionId))).state as Outbox;
      entry = outbox.entries[eventId] as DeliveryEntry;
      if (entry.status !== 'queued') return;
    }
    const conversation = await this.conversations.of(sessionId);
    const channel = conversation && (await this.channels.find(conversation.connection_id));
    if (!conversation || !channel) throw new NonRetryableJobError(`the channel of session ${sessionId} no longer exists`);
    const adapter = this.adapters.of(channel.kind);
    const parts = this.parts(adapter, entry.text);
    const target = { settings: channel.settings, credentials: this.channels.credentials(channel), address: conversation.address };
    let rateLimited = 0;
    for (let part = entry.parts_sent; part < parts.length; part++) {
      try {
        await adapter.send(target, parts[part] as string, `${eventId}-${part}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await this.append(sessionId, [{ type: 'DeliveryAttemptFailed', data: { event_id: eventId, error: message.slice(0, 500) } }]);
        if (
          error instanceof RateLimitedError &&
          ++rateLimited < this.config.deliveryAttempts &&
          error.retryAfterMs <= this.config.maxRetryAfterMs
        ) {
          // The platform said when to come back: wait exactly that, then send the same part again.
          await sleep(error.retryAfterMs);
          part--;
          continue;
        }
        if (error instanceof DeliveryError && !error.retryable) throw new NonRetryableJobError(message);
        throw error;
      }
      await this.append(sessionId, [{ type: 'DeliveryPartSent', data: { event_id: eventId, part } }]);
    }
    await this.append(sessionId, [{ type: 'DeliverySucceeded', data: { event_id: eventId, at: new Date().toISOString() } }]);
    this.metrics.delivered.inc({ channel: channel.kind });
    this.metrics.deliveryLatency.observe({ channel: channel.kind }, Math.max(0, Date.now() - Date.parse(entry.occurred_at)) / 1000);
  }

  /** Split at the platform's limit, then marked up; a part the markup made too long is cut again as plain text. */
  private parts(adapter: ChannelAdapter, text: string): string[] {
    return splitMessage(text, Math.floor(adapter.limit * 0.85)).flatMap((part) => {
      const formatted = formatFor(adapter.markup, part);
      return formatted.length <= adapter.limit ? [formatted] : splitMessage(formatFor('plain', part), adapter.limit);
    });
  }

  private async givenUp(failure: JobFailure<DeliveryJob>): Promise<void> {
    const { session_id: sessionId, event_id: eventId } = failure.data;
    await this.append(sessionId, [
      { type: 'DeliveryFailed', data: { event_id: eventId, error: failure.error.message.slice(0, 500), at: new Date().toISOString() } },
    ]);
    const conversation = await this.conversations.of(sessionId);
    const channel = conversation && (await this.channels.find(conversation.connection_id));
    this.metrics.failed.inc({ channel: channel?.kind ?? 'unknown' });
    this.logger.warn(`delivery of ${eventId} (session ${sessionId}) failed after ${failure.attempts} attempt(s): ${failure.error.message}`);
  }

  private async append(sessionId: string, events: OutboxEvent[]): Promise<void> {
    await this.store.append(outboxStream(sessionId), events);
  }
}
