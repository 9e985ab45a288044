import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { WorkspaceDirectory } from '../workspaces/workspace-directory.js';
import { WorkspaceScopeInterceptor } from '../workspaces/workspace-scope.interceptor.js';
import { AccessSettings } from './access-settings.js';
import { AuthGuard } from './auth.guard.js';
import { AuthStartup } from './auth-startup.js';
import { CredentialsRepository } from './credentials.repository.js';
import { RateLimits } from './rate-limits.js';

/**
 * API keys, session tokens, rate limits and workspace confinement on every HTTP route of the host that imports it
 * (ADR 0018): the gateway, and the memory store when it runs alone — its `/knowledge/*` and `/customers/*\/memory*`
 * are guarded exactly as in the gateway, and in distributed mode it refuses to start open unless TENET_AUTH=off.
 * Keys, tokens and ownership are read from the event log, so every host on the same log agrees on them.
 */
@Module({
  providers: [
    CredentialsRepository,
    WorkspaceDirectory,
    RateLimits,
    AuthStartup,
    AccessSettings,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_INTERCEPTOR, useClass: WorkspaceScopeInterceptor },
  ],
  exports: [CredentialsRepository, WorkspaceDirectory, AccessSettings],
})
export class EdgeAccessModule {}
