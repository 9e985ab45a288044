import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import type { MessageCreatedV1 } from '@tenet/contracts';
import type { MessageBus, Subscription } from '@tenet/messaging';
import { MESSAGE_BUS, PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import { ConversationsRepository } from '../inbound/conversations.repository.js';
import { DeliveryService } from './delivery.service.js';

/** Sources whose messages go to the platform: the agent's, and a human agent's while the session is `manual`. */
const OUTBOUND_SOURCES = new Set(['ai_agent', 'human_agent', 'human_agent_on_behalf_of_ai_agent']);

/**
 * Learns of agent messages from the published session topics, not by polling (ADR 0025): the per-workspace v2
 * topics on NATS (`tenet.v2.<workspace>.session.<id>.message_created`), the v1 topic on the all-in-one's in-process
 * bus, which carries v1 only (ADR 0018). One durable consumer shared by the replicas; a message of a session that
 * is no channel conversation is acknowledged and ignored.
 */
@Injectable()
export class AgentMessagesConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChannelAgentMessages');
  private subscription: Subscription | undefined;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly conversations: ConversationsRepository,
    private readonly deliveries: DeliveryService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const filterSubject =
      this.config.mode === 'distributed' ? 'tenet.v2.*.session.*.message_created' : 'tenet.v1.session.*.message_created';
    this.subscription = await this.bus.consume<MessageCreatedV1>(
      { durable: 'channel_gateway_agent_messages', filterSubject, deliverPolicy: 'new', maxDeliver: 20, concurrency: 8 },
      async ({ data }) => {
        if (data.type !== 'session.message_created' || !OUTBOUND_SOURCES.has(data.data.source)) return;
        const conversation = await this.conversations.of(data.data.session_id);
        if (!conversation) return;
        await this.deliveries.enqueue(conversation, {
          event_id: data.id,
          session_id: data.data.session_id,
          offset: data.offset,
          source: data.data.source,
          text: data.data.message,
          occurred_at: data.occurred_at,
        });
      },
    );
    this.logger.log(`delivering agent messages of channel conversations from ${filterSubject}`);
  }

  /** Before the platform closes the bus and the log (its onApplicationShutdown): a handler in flight still has both. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
