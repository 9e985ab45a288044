import { Server, type CustomTransportStrategy, type MessageHandler as NestHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { MessageBus, Subscription } from '../message-bus.port.js';

export interface TenetTransportOptions {
  bus: MessageBus;
  /** Names durable consumers (`<service>_<pattern>`) and is the queue group of request handlers. */
  serviceName: string;
}

/** Extras accepted by `@EventPattern(subject, { durable, maxDeliver, concurrency })`. */
export interface TenetEventExtras {
  durable?: string;
  maxDeliver?: number;
  concurrency?: number;
  nakDelayMs?: number;
}

const durableName = (service: string, pattern: string): string => `${service}_${pattern}`.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * A NestJS transport over Tenet's MessageBus port, so the same `@EventPattern`/`@MessagePattern` handlers run
 * on JetStream + core NATS (distributed) or on the in-process bus (all-in-one).
 *
 * - `@EventPattern(subject)` → a durable JetStream consumer; the message is acked only after the handler
 *   (and any observable it returns) completes. `propagatesEventHandlerErrors` makes Nest rethrow handler
 *   errors to us instead of logging them, so a failure naks and is redelivered, never silently acked.
 * - `@MessagePattern(subject)` → a request/reply responder in the service's queue group.
 */
export class TenetTransport extends Server implements CustomTransportStrategy {
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
      callback(error);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  on(): never {
    throw new Error('TenetTransport does not emit transport events; observe the MessageBus instead');
  }

  unwrap<T>(): T {
    return this.options.bus as T;
  }

  private async run(handler: NestHandler, data: unknown): Promise<unknown> {
    const result: unknown = await handler(data);
    return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
  }

  private bindEvent(pattern: string, handler: NestHandler): Promise<Subscription> {
    const extras = (handler.extras ?? {}) as TenetEventExtras;
    return this.options.bus.consume(
      {
        durable: extras.durable ?? durableName(this.options.serviceName, pattern),
        filterSubject: pattern,
        ...(extras.maxDeliver !== undefined ? { maxDeliver: extras.maxDeliver } : {}),
        ...(extras.concurrency !== undefined ? { concurrency: extras.concurrency } : {}),
        ...(extras.nakDelayMs !== undefined ? { nakDelayMs: extras.nakDelayMs } : {}),
      },
      async (message) => {
        await this.run(handler, message.data);
      },
    );
  }

  private bindRequest(pattern: string, handler: NestHandler): Promise<Subscription> {
    return this.options.bus.reply(pattern, this.options.serviceName, (data) => this.run(handler, data));
  }
}
