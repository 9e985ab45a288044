import { Module, type DynamicModule } from '@nestjs/common';
import { CatalogHttpModule } from '@tenet/catalog-http';
import { ChannelsModule } from '@tenet/channels-service';
import { IntentsModule } from '@tenet/intents-service';
import { JourneyEngineModule } from '@tenet/journeys-service';
import { GuidelineMatcherModule } from '@tenet/matching-service';
import { MemoryModule } from '@tenet/memory-service';
import { MeteringModule } from '@tenet/metering-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { ToolExecutionClientModule, ToolExecutorModule } from '@tenet/tools-service';
import { hostBasics, type HostOptions } from './host-basics.js';

/**
 * The process compositions of Tenet. The same feature modules run all-in-one (one process, embedded or
 * distributed adapters) or one service per process; only the host decides which modules share a process.
 */
@Module({})
export class AllInOneHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    const tools = { allowedHosts: options.toolAllowedHosts ?? [], stdioCommands: options.toolStdioCommands ?? [] };
    return {
      module: AllInOneHostModule,
      imports: [
        ...imports,
        PlatformModule.forRoot(config),
        CatalogHttpModule,
        SessionGatewayModule,
        // Intents (ADR 0031): `/intents`, and the turn's classification in its matching call.
        IntentsModule,
        GuidelineMatcherModule.forRoot(options),
        JourneyEngineModule,
        MeteringModule,
        MemoryModule,
        ToolExecutionClientModule.forRoot(tools),
        ToolExecutorModule.forRoot(tools),
        ChannelsModule,
      ],
      controllers,
    };
  }
}
export { type HostOptions } from './host-basics.js';
