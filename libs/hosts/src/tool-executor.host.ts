import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ObservabilityModule } from '@tenet/observability';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { ToolExecutorModule, type ToolModuleOptions } from '@tenet/tools-service';
import { HealthHttpController } from './health.http.controller.js';
import { MetricsHttpController } from './metrics.http.controller.js';

/**
 * The tool executor alone (`apps/tool-executor`): a BullMQ worker on the `tool-calls` queue and the describe RPC
 * (queue group `tool-executor`). It records ToolInvocations in its event log, whose relay publishes them as
 * `tenet.v1.tool.*` events; run N replicas for throughput and for a killed replica's calls to be redone.
 */
@Module({})
export class ToolExecutorHostModule {
  static forRoot(config: PlatformConfig, options: ToolModuleOptions = {}): DynamicModule {
    return {
      module: ToolExecutorHostModule,
      imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forRoot(config), TerminusModule.forRoot({ logger: false }), ToolExecutorModule.forRoot(options)],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}
