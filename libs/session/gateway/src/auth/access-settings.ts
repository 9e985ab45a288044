import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import { authConfigFrom, type AuthConfig } from './auth-config.js';
import { rateLimitConfigFrom, type RateLimitConfig } from './rate-limit-config.js';

/**
 * Authentication and rate-limit settings of the gateway host. Read from the process environment when the module
 * starts, and again from the environment the host passes to `configureGatewayHttp` (tests pass their own), which
 * throws — so the process does not start — on a setting that would run it open against the rules.
 */
@Injectable()
export class AccessSettings {
  auth: AuthConfig;
  rateLimits: RateLimitConfig;

  constructor(@Inject(PLATFORM_CONFIG) private readonly platform: PlatformConfig) {
    this.auth = authConfigFrom(process.env, platform.mode, '127.0.0.1');
    this.rateLimits = rateLimitConfigFrom(process.env);
  }

  configure(env: Record<string, string | undefined>): void {
    this.auth = authConfigFrom(env, this.platform.mode, '127.0.0.1');
    this.rateLimits = rateLimitConfigFrom(env);
  }
}
