import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MemoryStoreHostModule } from '@tenet/hosts/memory-store';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/edge';

/**
 * The memory store: answers `tenet.rpc.v1.memory.recall` (queue group `memory-store`) and serves the knowledge
 * and customer-memory REST on PORT (default 8806). Facts go to the event log (MongoDB with MONGO_URL, else
 * SQLite in TENET_DATA_DIR); knowledge chunks to `knowledge.sqlite` in TENET_DATA_DIR, or to MongoDB Atlas with
 * TENET_KNOWLEDGE_INDEX=mongodb (ADR 0016).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8806', ...process.env };
const settings = loadConfigOrExit('memory-store', env);
const config = loadPlatformConfig(env, 'memory-store', settings);
startTracing(config.serviceName, env);
const logger = new Logger('memory-store');
const app = await NestFactory.create(MemoryStoreHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
// The same edge as the gateway: JSON-only bodies, the validation pipe (422 naming the field), the error shape.
configureGatewayHttp(app, env);
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`memory-store (${config.mode}) answering recall; REST and health on :${config.port}`);
closeOnSignals(app, logger);
