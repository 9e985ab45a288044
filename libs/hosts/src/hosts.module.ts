import { Module, type DynamicModule } from '@nestjs/common';
import type { LlmProvider } from '@tenet/llm';
import { JourneyEngineModule } from '@tenet/journeys-service';
import { GuidelineMatcherModule } from '@tenet/matching-service';
import { MeteringModule } from '@tenet/metering-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { HealthHttpController } from './health.http.controller.js';

export interface HostOptions {
  /** Overrides the configured LLM provider of the matcher (tests, benchmarks). */
  provider?: LlmProvider;
}

/**
 * The process compositions of Tenet. The same feature modules run all-in-one (one process, embedded or
 * distributed adapters) or one service per process; only the host decides which modules share a process.
 */
@Module({})
export class AllInOneHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    return {
      module: AllInOneHostModule,
      imports: [PlatformModule.forRoot(config), SessionGatewayModule, GuidelineMatcherModule.forRoot(options), JourneyEngineModule, MeteringModule],
      controllers: [HealthHttpController],
    };
  }
}

/** The session gateway alone: REST on PORT, turns served by matcher replicas over the bus. */
@Module({})
export class GatewayHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: GatewayHostModule, imports: [PlatformModule.forRoot(config), SessionGatewayModule], controllers: [HealthHttpController] };
  }
}

/** The guideline matcher alone: stateless, so it opens only the bus. */
@Module({})
export class MatcherHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    return { module: MatcherHostModule, imports: [PlatformModule.forMessaging(config), GuidelineMatcherModule.forRoot(options)], controllers: [HealthHttpController] };
  }
}

/** The metering service alone, with its own event log for token records. */
@Module({})
export class MeteringHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: MeteringHostModule, imports: [PlatformModule.forRoot(config), MeteringModule], controllers: [HealthHttpController] };
  }
}

/** The journey engine alone: stateless (state travels in each request), so it opens only the bus. */
@Module({})
export class JourneyEngineHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: JourneyEngineHostModule, imports: [PlatformModule.forMessaging(config), JourneyEngineModule], controllers: [HealthHttpController] };
  }
}
