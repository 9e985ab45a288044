import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MatcherHostModule } from '@tenet/hosts/matcher';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';

/**
 * A guideline-matcher replica: answers match and compose requests from the queue group `guideline-matcher`
 * on NATS, so N replicas share the turns. Stateless: it opens only the bus. `/healthz` on PORT (default 8801).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8801', ...process.env };
const settings = loadConfigOrExit('guideline-matcher', env);
const config = loadPlatformConfig(env, 'guideline-matcher', settings);
startTracing(config.serviceName, env);
const logger = new Logger('guideline-matcher');
const app = await NestFactory.create(MatcherHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`guideline matcher (${config.mode}) serving the queue group "${config.serviceName}"; health on :${config.port}/healthz`);
closeOnSignals(app, logger);
