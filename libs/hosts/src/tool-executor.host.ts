import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { ToolExecutorModule, type ToolModuleOptions } from '@tenet/tools-service';
import { hostBasics } from './host-basics.js';

/**
 * The tool executor alone (`apps/tool-executor`): a BullMQ worker on the `tool-calls` queue and the describe RPC
 * (queue group `tool-executor`). It records ToolInvocations in its event log, whose relay publishes them as
 * `tenet.v1.tool.*` events; run N replicas for throughput and for a killed replica's calls to be redone.
 */
@Module({})
export class ToolExecutorHostModule {
  static forRoot(config: PlatformConfig, options: ToolModuleOptions = {}): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return {
      module: ToolExecutorHostModule,
      imports: [...imports, PlatformModule.forRoot(config), ToolExecutorModule.forRoot(options)],
      controllers,
    };
  }
}
