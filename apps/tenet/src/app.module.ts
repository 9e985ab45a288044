import { Module, type DynamicModule } from '@nestjs/common';
import { AllInOneHostModule, type HostOptions } from '@tenet/hosts/all-in-one';
import type { PlatformConfig } from '@tenet/platform-runtime';
import { CHAT_PAGE_OPTIONS, ChatHttpController, type ChatPageOptions } from './chat/chat.http.controller.js';

/** The all-in-one host: every service module of Tenet in one process on the configured adapters, plus /chat. */
@Module({})
export class TenetAppModule {
  static forRoot(config: PlatformConfig, options: HostOptions = {}, chat: ChatPageOptions = { offlineProvider: false }): DynamicModule {
    return {
      module: TenetAppModule,
      imports: [AllInOneHostModule.forRoot(config, options)],
      controllers: [ChatHttpController],
      providers: [{ provide: CHAT_PAGE_OPTIONS, useValue: chat }],
    };
  }
}
