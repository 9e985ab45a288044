import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadPlatformConfig, PlatformModule } from '@tenet/platform-runtime';
import { SessionGatewayModule } from './gateway.module.js';
import { configureGatewayHttp } from './http/configure-http.js';

@Module({})
class GatewayHostModule {
  static forRoot(env: Record<string, string>): DynamicModule {
    return { module: GatewayHostModule, imports: [PlatformModule.forRoot(loadPlatformConfig(env, 'gateway-test')), SessionGatewayModule] };
  }
}

/** Boots a gateway the way the hosts do, on an ephemeral port, for integration tests. */
export async function startGateway(env: Record<string, string>): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(GatewayHostModule.forRoot(env), { logger: false });
  configureGatewayHttp(app);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
