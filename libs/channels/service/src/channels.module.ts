import { Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AdapterRegistry } from './adapters/adapter-registry.js';
import { BindingsHttpController } from './bindings/bindings.http.controller.js';
import { BindingsRepository } from './bindings/bindings.repository.js';
import { CHANNELS_CONFIG, channelsConfigProvider, type ChannelsConfig } from './channels.config.js';
import { ChannelMetrics } from './channels.metrics.js';
import { ChannelsHttpController } from './channels/channels.http.controller.js';
import { ChannelsRepository } from './channels/channels.repository.js';
import { AgentMessagesConsumer } from './delivery/agent-messages.consumer.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { ConversationsRepository } from './inbound/conversations.repository.js';
import { ChannelInboundHttpController } from './inbound/inbound.http.controller.js';
import { InboundService } from './inbound/inbound.service.js';
import { SessionGatewayClient } from './sessions/session-gateway.client.js';
import { WidgetHttpController } from './widget/widget.http.controller.js';

/**
 * The channel gateway (ADR 0025): bindings, channel connections, inbound URLs and delivery. Needs PlatformModule
 * (event log, scheduler, bus); a client of the session gateway over its REST API: TENET_CHANNELS_GATEWAY_URL, or
 * this process's own server when the gateway runs in it (all-in-one).
 */
@Module({
  controllers: [BindingsHttpController, WidgetHttpController, ChannelInboundHttpController, ChannelsHttpController],
  providers: [
    channelsConfigProvider,
    {
      provide: SessionGatewayClient,
      useFactory: (config: ChannelsConfig, http: HttpAdapterHost) =>
        new SessionGatewayClient(
          () => config.gatewayUrl ?? `http://127.0.0.1:${(http.httpAdapter.getHttpServer() as { address(): AddressInfo }).address().port}`,
          config.gatewayApiKey,
        ),
      inject: [CHANNELS_CONFIG, HttpAdapterHost],
    },
    {
      provide: AdapterRegistry,
      useFactory: (config: ChannelsConfig) =>
        new AdapterRegistry(AdapterRegistry.standard({ allowPrivateTargets: config.allowPrivateTargets })),
      inject: [CHANNELS_CONFIG],
    },
    ChannelMetrics,
    BindingsRepository,
    ChannelsRepository,
    ConversationsRepository,
    InboundService,
    DeliveryService,
    AgentMessagesConsumer,
  ],
  exports: [ChannelsRepository, CHANNELS_CONFIG],
})
export class ChannelsModule {}
