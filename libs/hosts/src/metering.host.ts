import { Module, type DynamicModule } from '@nestjs/common';
import { MeteringModule } from '@tenet/metering-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { hostBasics } from './host-basics.js';

/** The metering service alone, with its own event log for token records. */
@Module({})
export class MeteringHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return { module: MeteringHostModule, imports: [...imports, PlatformModule.forRoot(config), MeteringModule], controllers };
  }
}
