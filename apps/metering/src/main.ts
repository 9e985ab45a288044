import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MeteringHostModule } from '@tenet/hosts/metering';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';

/**
 * The metering service: a durable JetStream consumer of `tenet.v1.metering.*.llm_usage_recorded` that keeps
 * one token record per LLM call in its own event log (MongoDB with MONGO_URL, else SQLite in TENET_DATA_DIR),
 * and answers usage summaries for the gateway's `GET /agents/{id}/usage`. `/healthz` on PORT (default 8802).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8802', ...process.env };
const settings = loadConfigOrExit('metering', env);
const config = loadPlatformConfig(env, 'metering', settings);
startTracing(config.serviceName, env);
const logger = new Logger('metering');
const app = await NestFactory.create(MeteringHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`metering (${config.mode}) consuming usage events; health on :${config.port}/healthz`);
closeOnSignals(app, logger);
