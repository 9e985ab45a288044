import { Module, type DynamicModule } from '@nestjs/common';
import { GuidelineMatcherModule } from '@tenet/matching-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { hostBasics, type HostOptions } from './host-basics.js';

/** The guideline matcher alone: stateless, so it opens only the bus. */
@Module({})
export class MatcherHostModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return {
      module: MatcherHostModule,
      imports: [...imports, PlatformModule.forMessaging(config), GuidelineMatcherModule.forRoot(options)],
      controllers,
    };
  }
}
