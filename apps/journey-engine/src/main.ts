import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JourneyEngineHostModule } from '@tenet/hosts/journey-engine';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';

/**
 * A journey-engine replica: answers `tenet.rpc.v1.journeys.advance` from the queue group `journey-engine` on
 * NATS. Stateless (journey state is the session's recorded events, sent with each request): it opens only the
 * bus. `/healthz` on PORT (default 8805).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8805', ...process.env };
const settings = loadConfigOrExit('journey-engine', env);
const config = loadPlatformConfig(env, 'journey-engine', settings);
startTracing(config.serviceName, env);
const logger = new Logger('journey-engine');
const app = await NestFactory.create(JourneyEngineHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`journey engine (${config.mode}) serving the queue group "${config.serviceName}"; health on :${config.port}/healthz`);
closeOnSignals(app, logger);
