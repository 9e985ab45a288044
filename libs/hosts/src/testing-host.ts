import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/edge';
import {
  AllInOneHostModule,
  ChannelGatewayHostModule,
  GatewayHostModule,
  MemoryStoreHostModule,
  type HostOptions,
} from './hosts.module.js';
import { startMessageHandlers } from './service-host.js';

/** Boots the all-in-one composition the way `apps/tenet` does, on an ephemeral port, for integration tests. */
export async function startAllInOne(
  env: Record<string, string>,
  options: HostOptions = {},
): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(
    AllInOneHostModule.forRoot(loadPlatformConfig(env, env['TENET_SERVICE_NAME'] ?? 'tenet-test'), options),
    { logger: false },
  );
  configureGatewayHttp(app, env);
  await startMessageHandlers(app, 'tenet');
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

/** Boots the session gateway alone (turns need matcher replicas on the bus), as `apps/session-gateway` does. */
export async function startGatewayOnly(env: Record<string, string>): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(
    GatewayHostModule.forRoot(loadPlatformConfig(env, env['TENET_SERVICE_NAME'] ?? 'session-gateway-test')),
    { logger: false },
  );
  configureGatewayHttp(app, env);
  await startMessageHandlers(app, 'session-gateway');
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

/** Boots the memory store alone (knowledge and customer-memory REST, recall), as `apps/memory-store` does. */
export async function startMemoryStoreOnly(env: Record<string, string>): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(
    MemoryStoreHostModule.forRoot(
      loadPlatformConfig({ TENET_MODE: 'distributed', ...env }, env['TENET_SERVICE_NAME'] ?? 'memory-store-test'),
    ),
    { logger: false },
  );
  configureGatewayHttp(app, { TENET_MODE: 'distributed', ...env });
  await startMessageHandlers(app, 'memory-store');
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

/** Boots the channel gateway alone, as `apps/channel-gateway` does (TENET_CHANNELS_GATEWAY_URL names the session gateway). */
export async function startChannelGatewayOnly(env: Record<string, string>): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(
    ChannelGatewayHostModule.forRoot(
      loadPlatformConfig({ TENET_MODE: 'distributed', ...env }, env['TENET_SERVICE_NAME'] ?? 'channel-gateway-test'),
    ),
    { logger: false },
  );
  configureGatewayHttp(app, { TENET_MODE: 'distributed', ...env });
  await startMessageHandlers(app, 'channel-gateway');
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
