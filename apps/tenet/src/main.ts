import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { closeOnSignals, loadDemoAgent, startMessageHandlers } from '@tenet/hosts';
import { logFormatFrom, startTracing, TenetLogger } from '@tenet/observability';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/session-gateway';
import { TenetAppModule } from './app.module.js';

const config = loadPlatformConfig(process.env, 'tenet');
startTracing(config.serviceName, process.env);
const logger = new Logger('tenet');
const app = await NestFactory.create(TenetAppModule.forRoot(config), { logger: new TenetLogger(config.serviceName, logFormatFrom(process.env)) });
configureGatewayHttp(app);
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`Tenet (${config.mode}, all-in-one) listening on http://127.0.0.1:${config.port} — chat at /chat, API docs at /docs, health at /healthz`);
closeOnSignals(app, logger);

// The demo agent from examples/ (TENET_DEMO=off skips it), seeded through the API once the server listens.
if (process.env['TENET_DEMO'] !== 'off') {
  await loadDemoAgent(`http://127.0.0.1:${config.port}`, new URL('../../../examples/demo-agent.json', import.meta.url), logger);
}
