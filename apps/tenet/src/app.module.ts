import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { ChatHttpController } from './chat/chat.http.controller.js';
import { HealthHttpController } from './health/health.http.controller.js';

/** The all-in-one host: every service module of Tenet in one process on the configured adapters. */
@Module({})
export class TenetAppModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: TenetAppModule, imports: [PlatformModule.forRoot(config), SessionGatewayModule], controllers: [HealthHttpController, ChatHttpController] };
  }
}
