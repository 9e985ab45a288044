import { Module, type DynamicModule } from '@nestjs/common';
import { ChannelsModule } from '@tenet/channels-service';
import { EdgeAccessModule } from '@tenet/edge';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { hostBasics } from './host-basics.js';

/**
 * The channel gateway alone (ADR 0025): bindings, channel connections and their inbound URLs, delivery of agent
 * messages from the v2 session topics. A client of the session gateway (TENET_CHANNELS_GATEWAY_URL); its REST has the
 * gateway's edge (EdgeAccessModule) on the log it shares with the gateway, like the memory store.
 */
@Module({})
export class ChannelGatewayHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return {
      module: ChannelGatewayHostModule,
      imports: [...imports, PlatformModule.forRoot(config), EdgeAccessModule, ChannelsModule],
      controllers,
    };
  }
}
