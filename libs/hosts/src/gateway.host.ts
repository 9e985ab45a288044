import { Module, type DynamicModule } from '@nestjs/common';
import { CatalogHttpModule } from '@tenet/catalog-http';
import { IntentsModule } from '@tenet/intents-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { ToolExecutionClientModule } from '@tenet/tools-service';
import { hostBasics } from './host-basics.js';

/** The session gateway alone: REST on PORT, turns served by matcher replicas over the bus. */
@Module({})
export class GatewayHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    // Tool calls go to the tool-executor replicas (BullMQ queue, describe over NATS).
    return {
      module: GatewayHostModule,
      imports: [
        ...imports,
        PlatformModule.forRoot(config),
        CatalogHttpModule,
        SessionGatewayModule,
        IntentsModule,
        ToolExecutionClientModule.forRoot(),
      ],
      controllers,
    };
  }
}
