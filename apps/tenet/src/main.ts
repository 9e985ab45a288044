import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DemoNeedsKeyError, loadDemoAgent, startDemoOrderService } from '@tenet/hosts/demo';
import { closeOnSignals, startMessageHandlers } from '@tenet/hosts/service';
import { startTracing, TenetLogger } from '@tenet/observability';
import { llmProviderNameFrom } from '@tenet/llm';
import { loadConfigOrExit } from '@tenet/config';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { inboundUrlLines } from '@tenet/channels-service';
import { configureGatewayHttp } from '@tenet/edge';
import { TenetAppModule } from './app.module.js';

// Validated once, against the all-in-one schema (docs/configuration.md): a bad value stops the process here, naming the variable.
const settings = loadConfigOrExit('tenet', process.env);
const config = loadPlatformConfig(process.env, 'tenet', settings);
startTracing(config.serviceName, process.env);
const logger = new Logger('tenet');
const demo = settings.get('TENET_DEMO') !== 'off';
// The demo agent's example tool service (order status, OpenAPI on 127.0.0.1); the tool executor may call exactly
// its address (TENET_DEMO_TOOLS_PORT, default a free port), not the rest of loopback.
const orderService = demo ? await startDemoOrderService(settings.get('TENET_DEMO_TOOLS_PORT')) : undefined;
const offlineProvider = llmProviderNameFrom(process.env).toLowerCase() === 'offline';
const app = await NestFactory.create(
  TenetAppModule.forRoot(config, { toolAllowedHosts: orderService ? [orderService.hostPort] : [] }, { offlineProvider }),
  {
    logger: TenetLogger.fromEnv(config.serviceName, process.env),
  },
);
configureGatewayHttp(app);
await startMessageHandlers(app, config.serviceName);
// Loopback unless opened with TENET_HOST (the container image sets 0.0.0.0): a laptop's `npm start` is not on the network.
const host = settings.get('TENET_HOST') ?? '127.0.0.1';
await app.listen(config.port, host);
logger.log(
  `Tenet (${config.mode}, all-in-one) listening on http://${host}:${config.port} — chat at /chat, API docs at /docs, health at /healthz`,
);
for (const line of await inboundUrlLines(app, `http://${host}:${config.port}`)) logger.log(line);
if (offlineProvider) {
  logger.warn(
    'No language model: replies come from the offline stand-in (deterministic phrases from the matched guidelines) until OPENAI_API_KEY or ANTHROPIC_API_KEY is set',
  );
}
closeOnSignals(app, logger);
// A signal during the demo's seeding closes the server under it: the seeding's failed requests are then expected.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stopping = true));

// The demo agent from examples/ (TENET_DEMO=off skips it), seeded through the API once the server listens, with
// its order-status tool service registered at the address it got; with keys required, as TENET_ADMIN_KEY.
if (orderService) {
  logger.log(`demo order-status tool service (OpenAPI) on ${orderService.url}`);
  const demoFile = new URL('../../../examples/demo-agent.json', import.meta.url);
  await loadDemoAgent(
    `http://127.0.0.1:${config.port}`,
    demoFile,
    logger,
    { orders: orderService },
    { adminKey: settings.get('TENET_ADMIN_KEY') },
  ).catch((error: unknown) => {
    if (stopping) return logger.log('demo seeding stopped: the server is shutting down');
    if (!(error instanceof DemoNeedsKeyError)) throw error;
    logger.warn(`demo agent not loaded: ${error.message}`);
  });
}
