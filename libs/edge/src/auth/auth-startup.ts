import { Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ACCESS_SETTINGS_KEY, AccessSettings, type AccessConfig } from './access-settings.js';

/** Says at start-up, where an operator sees it, whether the API is open. */
@Injectable()
export class AuthStartup implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly settings: AccessSettings,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    const express = this.adapterHost?.httpAdapter?.getInstance() as { get?: (key: string) => unknown } | undefined;
    const config = ((express?.get?.(ACCESS_SETTINGS_KEY) as AccessConfig | undefined) ?? this.settings.defaults).auth;
    if (!config.enforced) {
      this.logger.warn(
        `AUTHENTICATION IS OFF (${config.reason}): every API route is open to anyone who can reach this port. Set TENET_AUTH=on to require API keys.`,
      );
    } else {
      this.logger.log(
        `API keys required (${config.reason}): Authorization: Bearer <key>${config.bootstrapKey ? '; TENET_ADMIN_KEY is an admin key of the default workspace' : '; set TENET_ADMIN_KEY to create the first keys'}`,
      );
    }
  }
}
