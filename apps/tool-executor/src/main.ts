import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ToolExecutorHostModule } from '@tenet/hosts/tool-executor';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';

/**
 * The tool executor: runs tool calls from the durable `tool-calls` queue (BullMQ on REDIS_URL) against
 * OpenAPI, MCP and Parlant-plugin services under the outbound guard (TENET_TOOL_ALLOWED_HOSTS,
 * TENET_TOOL_MAX_RESPONSE_BYTES), answers describe requests on NATS (queue group `tool-executor`), and records
 * ToolInvocations in its event log (MONGO_URL, else SQLite in TENET_DATA_DIR). `/healthz` on PORT (default 8803).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8803', ...process.env };
const settings = loadConfigOrExit('tool-executor', env);
const config = loadPlatformConfig(env, 'tool-executor', settings);
startTracing(config.serviceName, env);
const logger = new Logger('tool-executor');
const app = await NestFactory.create(ToolExecutorHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, '0.0.0.0');
logger.log(`tool executor (${config.mode}) pid ${process.pid}; health on :${config.port}/healthz`);
closeOnSignals(app, logger);
