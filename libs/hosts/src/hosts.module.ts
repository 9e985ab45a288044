import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ChannelsModule } from '@tenet/channels-service';
import type { LlmProvider } from '@tenet/llm';
import { JourneyEngineModule } from '@tenet/journeys-service';
import { GuidelineMatcherModule } from '@tenet/matching-service';
import { MemoryModule } from '@tenet/memory-service';
import { MeteringModule } from '@tenet/metering-service';
import { ObservabilityModule } from '@tenet/observability';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { CatalogHttpModule } from '@tenet/catalog-http';
import { EdgeAccessModule } from '@tenet/edge';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { IntentsModule } from '@tenet/intents-service';
import { ToolExecutionClientModule, ToolExecutorModule } from '@tenet/tools-service';
import { HealthHttpController } from './health.http.controller.js';
import { MetricsHttpController } from './metrics.http.controller.js';

/** `/healthz` and `/readyz` (see HealthHttpController); failed checks are in the 503 body, not logged per probe. */
const health = TerminusModule.forRoot({ logger: false });

export interface HostOptions {
  /** Overrides the configured LLM provider of the matcher (tests, benchmarks). */
  provider?: LlmProvider;
  /**
   * Tool-service targets the executor may call besides TENET_TOOL_ALLOWED_HOSTS (`host` or `host:port`), e.g. the
   * bundled demo tool service's own 127.0.0.1 address — that address only, not all of loopback.
   */
  toolAllowedHosts?: string[];
  /** Commands MCP stdio tool services may run besides TENET_TOOL_STDIO_COMMANDS (tests). */
  toolStdioCommands?: string[];
}

/**
 * The process compositions of Tenet. The same feature modules run all-in-one (one process, embedded or
 * distributed adapters) or one service per process; only the host decides which modules share a process.
 * Every host serves `/healthz` and `/metrics` (Prometheus, one registry per process).
 */
@Module({})
export class AllInOneHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    return {
      module: AllInOneHostModule,
      imports: [
        ObservabilityModule.forRoot(config.serviceName),
        PlatformModule.forRoot(config),
        health,
        CatalogHttpModule,
        SessionGatewayModule,
        // Intents (ADR 0031): `/intents`, and the turn's classification in its matching call.
        IntentsModule,
        GuidelineMatcherModule.forRoot(options),
        JourneyEngineModule,
        MeteringModule,
        MemoryModule,
        ToolExecutionClientModule.forRoot({ allowedHosts: options.toolAllowedHosts ?? [], stdioCommands: options.toolStdioCommands ?? [] }),
        ToolExecutorModule.forRoot({ allowedHosts: options.toolAllowedHosts ?? [], stdioCommands: options.toolStdioCommands ?? [] }),
        ChannelsModule,
      ],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}

/** The session gateway alone: REST on PORT, turns served by matcher replicas over the bus. */
@Module({})
export class GatewayHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    // Tool calls go to the tool-executor replicas (BullMQ queue, describe over NATS).
    return {
      module: GatewayHostModule,
      imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forRoot(config), health, CatalogHttpModule, SessionGatewayModule, IntentsModule, ToolExecutionClientModule.forRoot()],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}

/** The guideline matcher alone: stateless, so it opens only the bus. */
@Module({})
export class MatcherHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    return { module: MatcherHostModule, imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forMessaging(config), health, GuidelineMatcherModule.forRoot(options)], controllers: [HealthHttpController, MetricsHttpController] };
  }
}

/** The metering service alone, with its own event log for token records. */
@Module({})
export class MeteringHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: MeteringHostModule, imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forRoot(config), health, MeteringModule], controllers: [HealthHttpController, MetricsHttpController] };
  }
}

/** The journey engine alone: stateless (state travels in each request), so it opens only the bus. */
@Module({})
export class JourneyEngineHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return {
      module: JourneyEngineHostModule,
      imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forMessaging(config), health, JourneyEngineModule],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}

/**
 * The memory and knowledge service alone: `tenet.rpc.v1.memory.recall` (queue group `memory-store`) and the REST
 * of knowledge sources and customer memory (`/knowledge/*`, `/customers/{id}/memory*` — route those paths here).
 * It owns the knowledge index (SQLite in TENET_DATA_DIR, ADR 0016) and writes facts to the event log. Its REST has
 * the gateway's edge (EdgeAccessModule): keys, session tokens and workspaces, read from the event log it shares with
 * the gateway — with its own SQLite log only TENET_ADMIN_KEY is known there, so route through the gateway's log.
 */
@Module({})
export class MemoryStoreHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return {
      module: MemoryStoreHostModule,
      imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forRoot(config), health, EdgeAccessModule, MemoryModule],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}

/**
 * The channel gateway alone (ADR 0025): bindings, channel connections and their inbound URLs, delivery of agent
 * messages from the v2 session topics. A client of the session gateway (TENET_CHANNELS_GATEWAY_URL); its REST has the
 * gateway's edge (EdgeAccessModule) on the log it shares with the gateway, like the memory store.
 */
@Module({})
export class ChannelGatewayHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return {
      module: ChannelGatewayHostModule,
      imports: [ObservabilityModule.forRoot(config.serviceName), PlatformModule.forRoot(config), health, EdgeAccessModule, ChannelsModule],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}
