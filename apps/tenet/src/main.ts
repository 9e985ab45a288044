import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadPlatformConfig } from '@tenet/platform-runtime';
import { configureGatewayHttp } from '@tenet/session-gateway';
import { TenetAppModule } from './app.module.js';
import { loadDemoAgent } from './demo/load-demo-agent.js';

const config = loadPlatformConfig(process.env, 'tenet');
const logger = new Logger('tenet');
const app = await NestFactory.create(TenetAppModule.forRoot(config));
configureGatewayHttp(app);
await app.listen(config.port, '0.0.0.0');
logger.log(`Tenet (${config.mode}) listening on http://127.0.0.1:${config.port} — health at /healthz`);

// Close the application (relay drained, event log, bus and timers closed) before exiting, and exit 0 on a
// requested stop so process managers and `npm start` see a clean shutdown.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.log(`${signal} received, shutting down`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(error);
        process.exit(1);
      },
    );
  });
}

// The demo agent from examples/ (TENET_DEMO=off skips it), seeded through the API once the server listens.
if (process.env['TENET_DEMO'] !== 'off') {
  await loadDemoAgent(`http://127.0.0.1:${config.port}`, new URL('../../../examples/demo-agent.json', import.meta.url), logger);
}
