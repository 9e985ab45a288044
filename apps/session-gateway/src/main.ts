import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GatewayHostModule } from '@tenet/hosts/gateway';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/edge';

/**
 * The session gateway as its own process: Parlant-compatible REST on PORT (default 8800), the session event
 * log (MongoDB with MONGO_URL, else SQLite in TENET_DATA_DIR), session timers on BullMQ, turns answered by
 * guideline-matcher replicas over NATS. Run as many replicas as needed against one event log.
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', ...process.env };
const settings = loadConfigOrExit('session-gateway', env);
const config = loadPlatformConfig(env, 'session-gateway', settings);
startTracing(config.serviceName, env);
const logger = new Logger('session-gateway');
const app = await NestFactory.create(GatewayHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
configureGatewayHttp(app, env);
await startMessageHandlers(app, config.serviceName);
// A distributed gateway serves other hosts (containers, a load balancer): all interfaces unless TENET_HOST says otherwise.
await app.listen(config.port, settings.get('TENET_HOST') ?? '0.0.0.0');
logger.log(`session gateway (${config.mode}) listening on http://127.0.0.1:${config.port}`);
closeOnSignals(app, logger);
