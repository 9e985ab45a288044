import { Server, type CustomTransportStrategy, type MessageHandler as NestHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { MessageBus, Subscription } from '../message-bus.port.js';
import { TenetContext } from './tenet-context.js';

export interface TenetTransportOptions {
  bus: MessageBus;
  /** Names durable consumers (`<service>_<pattern>`) and is the queue group of request handlers. */
  serviceName: string;
}

/** Extras accepted by `@MessagePattern(subject, { queueGroup })`. */
export interface TenetRequestExtras {
  /**
   * The queue group that shares this pattern's requests; defaults to the service name. Set it to the owning
   * service's name so that replicas share the work in whatever host process the module runs.
   */
  queueGroup?: string;
}

/** Extras accepted by `@EventPattern(subject, { durable, maxDeliver, concurrency, nakDelayMs })`. */
export interface TenetEventExtras {
  /** Overrides the derived durable name, e.g. to keep a position when a pattern is renamed. */
  durable?: string;
  maxDeliver?: number;
  concurrency?: number;
  nakDelayMs?: number;
  ackWaitMs?: number;
  deliverPolicy?: 'all' | 'new';
}

/** Durable names may not contain `.`, `*`, `>` or whitespace. */
export const durableNameFor = (service: string, pattern: string): string =>
  `${service}_${pattern}`
    .replaceAll('>', 'all')
    .replaceAll('*', 'any')
    .replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * A NestJS transport over Tenet's MessageBus port, so the same `@EventPattern`/`@MessagePattern` handlers run
 * on JetStream + core NATS (distributed) or on the in-process bus (all-in-one).
 *
 * - `@EventPattern(subject)` → a durable consumer. The message is acked only after the handler — and any
 *   observable it returns — completes. Nest routes a handler's exception through its exception filters,
 *   which hand back an *erroring observable*, not a rejection; Nest's own `handleEvent` connects that
 *   observable without subscribing, so the error is only logged and a transport would ack. We await the
 *   observable instead (as `ServerKafka` does), so a failure naks and the message is redelivered.
 * - `@MessagePattern(subject)` → a request/reply responder in the service's queue group.
 * - With `TenetExceptionFilter` registered, errors keep their identity: `NonRetryableMessageError` terms,
 *   an error `code` reaches the requester.
 */
export class TenetTransport extends Server implements CustomTransportStrategy {
  /** Nest then leaves reporting event-handler failures to us (they are logged below, then nak'd). */
  override readonly propagatesEventHandlerErrors = true;
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly options: TenetTransportOptions) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [pattern, handler] of this.getHandlers()) {
        this.subscriptions.push(handler.isEventHandler ? await this.bindEvent(pattern, handler) : await this.bindRequest(pattern, handler));
      }
      callback();
    } catch (error) {
      await this.close().catch(() => undefined);
      callback(error);
    }
  }

  /** Stops the consumers and responders; the bus belongs to whoever created it and stays open. */
  async close(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  on(): never {
    throw new Error('TenetTransport does not emit transport events; observe the MessageBus instead');
  }

  unwrap<T>(): T {
    return this.options.bus as T;
  }

  private bindEvent(pattern: string, handler: NestHandler): Promise<Subscription> {
    const extras = (handler.extras ?? {}) as TenetEventExtras;
    return this.options.bus.consume(
      {
        durable: extras.durable ?? durableNameFor(this.options.serviceName, pattern),
        filterSubject: pattern,
        ...(extras.maxDeliver !== undefined ? { maxDeliver: extras.maxDeliver } : {}),
        ...(extras.concurrency !== undefined ? { concurrency: extras.concurrency } : {}),
        ...(extras.nakDelayMs !== undefined ? { nakDelayMs: extras.nakDelayMs } : {}),
        ...(extras.ackWaitMs !== undefined ? { ackWaitMs: extras.ackWaitMs } : {}),
        ...(extras.deliverPolicy !== undefined ? { deliverPolicy: extras.deliverPolicy } : {}),
      },
      async (message) => {
        const context = new TenetContext([message.subject, message.headers, message.deliveryCount, message.sequence]);
        try {
          await this.process(handler, message.data, context);
        } catch (error) {
          this.logger.warn(
            `event handler for "${pattern}" failed on delivery ${message.deliveryCount} of ${message.subject}: ${messageOf(error)}`,
          );
          throw error;
        }
      },
    );
  }

  private bindRequest(pattern: string, handler: NestHandler): Promise<Subscription> {
    const queueGroup = (handler.extras as TenetRequestExtras | undefined)?.queueGroup ?? this.options.serviceName;
    return this.options.bus.reply(pattern, queueGroup, (data, headers) =>
      this.process(handler, data, new TenetContext([pattern, headers, 1, undefined])),
    );
  }

  /** Runs a Nest handler to completion inside Nest's processing hooks (used for tracing spans). */
  private process(handler: NestHandler, data: unknown, context: TenetContext): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.runWithProcessingHooks(context, async (runEndHook) => {
        try {
          const result: unknown = await handler(data, context);
          resolve(isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result);
        } catch (error) {
          reject(error);
        } finally {
          runEndHook();
        }
      });
    });
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}
