import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import type { Request } from 'express';
import { authConfigFrom, type AuthConfig } from './auth-config.js';
import { rateLimitConfigFrom, type RateLimitConfig } from './rate-limit-config.js';

export interface AccessConfig {
  auth: AuthConfig;
  rateLimits: RateLimitConfig;
}

/** Where `configureGatewayHttp` leaves the settings read from the host's environment (an Express app setting). */
export const ACCESS_SETTINGS_KEY = 'tenet.access';

/** Reads and checks the access settings of an environment; throws (the host does not start) on a bad one. */
export const accessConfigFrom = (env: Record<string, string | undefined>, mode: PlatformConfig['mode']): AccessConfig => ({
  auth: authConfigFrom(env, mode, '127.0.0.1'),
  rateLimits: rateLimitConfigFrom(env),
});

/**
 * Authentication and rate-limit settings of the gateway host: those `configureGatewayHttp` read from the environment
 * the host passed (tests pass their own), else the process environment's.
 */
@Injectable()
export class AccessSettings {
  private readonly fallback: AccessConfig;

  constructor(@Inject(PLATFORM_CONFIG) platform: PlatformConfig) {
    this.fallback = accessConfigFrom(process.env, platform.mode);
  }

  of(request: Request): AccessConfig {
    return (request.app?.get(ACCESS_SETTINGS_KEY) as AccessConfig | undefined) ?? this.fallback;
  }

  /** For start-up messages: the settings a configured host will use. */
  get defaults(): AccessConfig {
    return this.fallback;
  }
}
