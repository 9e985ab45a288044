import type { INestApplication, LoggerService } from '@nestjs/common';
import { readSettings, VARIABLES } from '@tenet/config';
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

/** Default of TENET_SHUTDOWN_GRACE_MS (in `@tenet/config`): within Kubernetes' default 30 s termination grace period. */
export const DEFAULT_SHUTDOWN_GRACE_MS = VARIABLES.TENET_SHUTDOWN_GRACE_MS.fallback;

/** TENET_SHUTDOWN_GRACE_MS, an integer ≥ 1000; a bad value fails the start. */
export function shutdownGraceFrom(env: Record<string, string | undefined>): number {
  return readSettings(env, ['TENET_SHUTDOWN_GRACE_MS']).TENET_SHUTDOWN_GRACE_MS;
}

/**
 * On SIGINT/SIGTERM: close the app (handlers stopped, running turns finished, relay drained, log, bus and
 * timers closed), then exit 0, so process managers, Kubernetes and `npm start` see a clean stop. A close that
 * has not finished within the grace period (TENET_SHUTDOWN_GRACE_MS; e.g. a dependency or a full disk that
 * keeps a step from ending) is abandoned: the process logs it and exits 1 (docs/reliability.md#a-full-disk-under-the-event-log).
 */
export function closeOnSignals(
  app: Pick<INestApplication, 'close'>,
  logger: LoggerService,
  graceMs = shutdownGraceFrom(process.env),
): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received, shutting down`);
      setTimeout(() => {
        logger.error(`shutdown did not finish within ${graceMs} ms (TENET_SHUTDOWN_GRACE_MS); exiting anyway`);
        process.exit(1);
      }, graceMs).unref();
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
