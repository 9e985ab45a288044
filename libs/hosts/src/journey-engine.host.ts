import { Module, type DynamicModule } from '@nestjs/common';
import { JourneyEngineModule } from '@tenet/journeys-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { hostBasics } from './host-basics.js';

/** The journey engine alone: stateless (state travels in each request), so it opens only the bus. */
@Module({})
export class JourneyEngineHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return {
      module: JourneyEngineHostModule,
      imports: [...imports, PlatformModule.forMessaging(config), JourneyEngineModule],
      controllers,
    };
  }
}
