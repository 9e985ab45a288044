import type { INestApplication, LoggerService } from '@nestjs/common';
import { TenetTransport, type MessageBus } from '@tenet/messaging';
import { MESSAGE_BUS } from '@tenet/platform-runtime';

/**
 * Connects the app's `@EventPattern`/`@MessagePattern` handlers to the platform bus (JetStream and core NATS,
 * or in-process) and starts them. `serviceName` is the queue group of request handlers, so replicas of one
 * service share its requests. Call before `listen`/`init`, so handlers answer before the first HTTP request.
 */
export async function startMessageHandlers(app: INestApplication, serviceName: string): Promise<void> {
  const bus = app.get<MessageBus>(MESSAGE_BUS);
  // Handlers are bound at connect time, so a global filter added afterwards would be ignored; the RPC
  // controllers carry `@UseFilters(TenetExceptionFilter)` themselves, which also keeps HTTP errors untouched.
  app.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName }) }, { inheritAppConfig: false });
  await app.startAllMicroservices();
}

/**
 * On SIGINT/SIGTERM: close the app (handlers stopped, running turns finished, relay drained, log, bus and
 * timers closed), then exit 0, so process managers, Kubernetes and `npm start` see a clean stop.
 */
export function closeOnSignals(app: INestApplication, logger: LoggerService): void {
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
}
