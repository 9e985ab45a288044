import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { closeOnSignals, MemoryStoreHostModule, startMessageHandlers } from '@tenet/hosts';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/edge';

/**
 * The memory store: answers `tenet.rpc.v1.memory.recall` (queue group `memory-store`) and serves the knowledge
 * and customer-memory REST on PORT (default 8806). Facts go to the event log (MongoDB with MONGO_URL, else
 * SQLite in TENET_DATA_DIR); knowledge chunks to `knowledge.sqlite` in TENET_DATA_DIR, or to MongoDB Atlas with
 * TENET_KNOWLEDGE_INDEX=mongodb (ADR 0016).
 */
const config = loadPlatformConfig({ TENET_MODE: 'distributed', PORT: '8806', ...process.env }, 'memory-store');
startTracing(config.serviceName, process.env);
const logger = new Logger('memory-store');
const app = await NestFactory.create(MemoryStoreHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, process.env) });
// The same edge as the gateway: JSON-only bodies, the validation pipe (422 naming the field), the error shape.
configureGatewayHttp(app);
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`memory-store (${config.mode}) answering recall; REST and health on :${config.port}`);
closeOnSignals(app, logger);
