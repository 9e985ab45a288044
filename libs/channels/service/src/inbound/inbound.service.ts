import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { sessionKey } from '@tenet/channels-domain';
import { SCHEDULER } from '@tenet/platform-runtime';
import { NonRetryableJobError, type JobContext, type Scheduler } from '@tenet/scheduling';
import { AdapterRegistry, TENET_API_KEY_FIELD } from '../adapters/adapter-registry.js';
import type { ChannelAdapter, ConnectionSecrets, InboundMessage } from '../adapters/channel-adapter.port.js';
import { BindingsRepository } from '../bindings/bindings.repository.js';
import { ChannelMetrics } from '../channels.metrics.js';
import type { StoredChannel } from '../channels/channel.dto.js';
import { ChannelsRepository } from '../channels/channels.repository.js';
import { SessionGatewayClient, SessionGatewayError } from '../sessions/session-gateway.client.js';
import { ConversationsRepository } from './conversations.repository.js';

export const INBOUND_QUEUE = 'channel-inbound';
/** Ended sessions one message walks past before giving up (each ended session has one successor). */
const MAX_SUCCESSORS = 5;

export const UNSUPPORTED_NOTICE =
  "Sorry, I can only read text messages here, so I couldn't open what you sent. Could you describe it in words?";
export const NO_AGENT_NOTICE =
  "Sorry, this conversation isn't connected to an assistant yet, so nobody can answer here. Please try again later.";

interface InboundJob {
  channel_id: string;
  message: InboundMessage;
  received_at_ms: number;
}

const hash = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/** A Tenet customer per platform user (per workspace and platform), so memory follows the person across conversations. */
export const customerIdFor = (channel: Pick<StoredChannel, 'workspace_id' | 'kind'>, platformUserId: string): string =>
  `ch_${hash(`${channel.workspace_id}\n${channel.kind}\n${platformUserId}`, 40)}`;

/**
 * Inbound platform messages, processed after the platform has had its answer: a job per platform message (its id
 * is the message id, so a retry the platform sends while the first is pending is a no-op; after it, the
 * Idempotency-Key of the customer event is) resolves the binding, opens the conversation's session on its first
 * message and posts the customer message — one conversation at a time in this process.
 */
@Injectable()
export class InboundService implements OnApplicationBootstrap {
  private readonly logger = new Logger('ChannelInbound');
  /** Per session key: messages of one conversation are posted in arrival order. */
  private readonly lanes = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Inject(SessionGatewayClient) private readonly gateway: SessionGatewayClient,
    private readonly channels: ChannelsRepository,
    private readonly bindings: BindingsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly adapters: AdapterRegistry,
    private readonly metrics: ChannelMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<InboundJob>(INBOUND_QUEUE, (job) => this.process(job), {
      concurrency: 8,
      onFailed: (failure) =>
        this.logger.error(
          `inbound message ${failure.data.message.messageId} of channel ${failure.data.channel_id} was not posted after ${failure.attempts} attempt(s): ${failure.error.message}`,
        ),
    });
  }

  /** Queues a verified platform message; false when the same message is already queued (a platform retry). */
  async accept(channel: StoredChannel, message: InboundMessage, receivedAtMs: number): Promise<boolean> {
    const { scheduled } = await this.scheduler.schedule<InboundJob>({
      queue: INBOUND_QUEUE,
      jobId: `${channel.id}.${hash(message.messageId, 32)}`,
      data: { channel_id: channel.id, message, received_at_ms: receivedAtMs },
      attempts: 8,
      backoff: { type: 'exponential', delayMs: 500 },
    });
    return scheduled;
  }

  private async process(job: JobContext<InboundJob>): Promise<void> {
    const { message, received_at_ms: receivedAt } = job.data;
    const channel = await this.channels.find(job.data.channel_id);
    if (!channel) return; // deleted since: nothing to answer for
    const adapter = this.adapters.of(channel.kind);
    const credentials = this.channels.credentials(channel);
    const text = message.text?.trim();
    if (!text) {
      if (message.unsupported.length > 0) await this.notice(adapter, channel, credentials, message, UNSUPPORTED_NOTICE, 'unsupported');
      return;
    }
    const resolution = await this.bindings.resolve(channel.workspace_id, { channel: channel.kind, ...message.origin });
    if (resolution.outcome === 'refused') {
      this.logger.warn(
        `channel ${channel.id} (${channel.kind}, workspace ${channel.workspace_id}): message ${message.messageId} refused — ${resolution.reason}`,
      );
      this.metrics.inbound.inc({ channel: channel.kind, outcome: 'refused' });
      await this.notice(adapter, channel, credentials, message, NO_AGENT_NOTICE, 'refused');
      return;
    }
    const agentId = resolution.agent_id;
    const customerId = customerIdFor(channel, message.sender.id);
    const key = sessionKey({
      agent_id: agentId,
      channel: channel.kind,
      account: channel.account_id ?? message.origin.account_id,
      peer: message.conversation.peer,
    });
    const apiKey = credentials[TENET_API_KEY_FIELD];
    await this.inLane(key, async () => {
      try {
        const opening = {
          agentId,
          customerId,
          customerName: message.sender.name,
          sessionKey: key,
          title: `${channel.name}: ${message.sender.name}`,
          metadata: { channel: { id: channel.id, kind: channel.kind, session_key: key } },
        };
        // A known conversation posts straight away; its first message creates the customer and the session (both
        // idempotent, so a retry after a crash in between converges on the same ones).
        let sessionId = await this.conversations.currentSession(key);
        // The current session was recorded after its conversation was: nothing to record before posting to it.
        let recorded = sessionId !== undefined;
        if (sessionId === undefined) {
          await this.gateway.ensureCustomer(customerId, message.sender.name, apiKey);
          sessionId = await this.gateway.openSession(opening, apiKey);
        }
        for (let successor = 0; ; successor++) {
          if (!recorded) {
            await this.conversations.open({
              session_id: sessionId,
              session_key: key,
              connection_id: channel.id,
              workspace_id: channel.workspace_id,
              agent_id: agentId,
              customer_id: customerId,
              address: message.conversation.address,
            });
            await this.conversations.setCurrentSession(key, sessionId);
          }
          try {
            await this.gateway.postCustomerMessage(
              sessionId,
              text,
              { id: customerId, display_name: message.sender.name },
              `${channel.id}\n${message.messageId}`,
              apiKey,
            );
            await this.conversations.setPeerSession(channel.id, message.conversation.peer, sessionId);
            break;
          } catch (error) {
            // The conversation's session has ended (completed, abandoned, expired: 409) or was deleted (404): the
            // conversation goes on in a successor session, itself created once (its key names the ended one).
            if (!(error instanceof SessionGatewayError && (error.status === 409 || error.status === 404)) || successor >= MAX_SUCCESSORS)
              throw error;
            await this.gateway.ensureCustomer(customerId, message.sender.name, apiKey);
            sessionId = await this.gateway.openSession({ ...opening, successorOf: sessionId }, apiKey);
            recorded = false;
          }
        }
      } catch (error) {
        if (error instanceof SessionGatewayError && !error.retryable) throw new NonRetryableJobError(error.message);
        throw error;
      }
    });
    this.metrics.inbound.inc({ channel: channel.kind, outcome: 'posted' });
    this.metrics.inboundLatency.observe({ channel: channel.kind }, Math.max(0, Date.now() - receivedAt) / 1000);
    if (message.unsupported.length > 0) await this.notice(adapter, channel, credentials, message, UNSUPPORTED_NOTICE, 'unsupported');
  }

  private async notice(
    adapter: ChannelAdapter,
    channel: StoredChannel,
    credentials: ConnectionSecrets,
    message: InboundMessage,
    text: string,
    why: string,
  ): Promise<void> {
    try {
      await adapter.send(
        { settings: channel.settings, credentials, address: message.conversation.address },
        text,
        `notice-${why}-${hash(`${channel.id}\n${message.messageId}`, 24)}`,
      );
    } catch (error) {
      this.logger.warn(
        `channel ${channel.id}: the ${why} notice for message ${message.messageId} was not delivered: ${(error as Error).message}`,
      );
    }
  }

  private async inLane<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = this.lanes.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.lanes.set(key, next);
    try {
      return await next;
    } finally {
      if (this.lanes.get(key) === next) this.lanes.delete(key);
    }
  }
}
