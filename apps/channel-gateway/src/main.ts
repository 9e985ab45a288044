import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ChannelGatewayHostModule } from '@tenet/hosts/channel-gateway';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { inboundUrlLines } from '@tenet/channels-service';
import { configureGatewayHttp } from '@tenet/edge';

/**
 * The channel gateway: `/bindings`, `/channels` and the channels' inbound URLs on PORT (default 8807), delivering
 * agent messages from the `tenet.v2.<workspace>.session.*.message_created` topics on NATS, with BullMQ queues on
 * Redis. A client of the session gateway at TENET_CHANNELS_GATEWAY_URL (default http://127.0.0.1:8800), with
 * TENET_CHANNELS_API_KEY when it requires keys; shares the gateway's event log (keys, workspaces). Stateless:
 * run as many replicas as needed (ADR 0025).
 */
// Validated once, against this process's schema (docs/configuration.md): a bad value stops it here, naming the variable.
const env = { TENET_MODE: 'distributed', PORT: '8807', TENET_CHANNELS_GATEWAY_URL: 'http://127.0.0.1:8800', ...process.env };
const settings = loadConfigOrExit('channel-gateway', env);
const config = loadPlatformConfig(env, 'channel-gateway', settings);
startTracing(config.serviceName, env);
const logger = new Logger('channel-gateway');
const app = await NestFactory.create(ChannelGatewayHostModule.forRoot(config), { logger: TenetLogger.fromEnv(config.serviceName, env) });
// The same edge as the gateway: JSON-only bodies (raw bytes kept for signatures), keys and workspaces, 422s.
configureGatewayHttp(app, env);
await startMessageHandlers(app, config.serviceName);
await app.listen(config.port, settings.get('TENET_HOST') ?? '0.0.0.0');
logger.log(
  `channel gateway (${config.mode}) on :${config.port} — inbound URLs at /channels/{id}/inbound, session gateway ${settings.get('TENET_CHANNELS_GATEWAY_URL')}`,
);
for (const line of await inboundUrlLines(app, `http://127.0.0.1:${config.port}`)) logger.log(line);
closeOnSignals(app, logger);
