import { BaseRpcContext } from '@nestjs/microservices';
import type { Headers } from '../message-bus.port.js';

type TenetContextArgs = [subject: string, headers: Headers, deliveryCount: number, sequence: number | undefined];

/**
 * What a Tenet handler can learn about the message beyond its payload (`@Ctx() context: TenetContext`).
 * Handlers are at-least-once: the delivery count and stream sequence are what idempotency checks key on.
 */
export class TenetContext extends BaseRpcContext<TenetContextArgs> {
  /** The concrete subject for events; the pattern for requests (a request handler sees only that). */
  getSubject(): string {
    return this.args[0];
  }

  getHeaders(): Headers {
    return this.args[1];
  }

  /** 1 on first delivery, 2, 3, … on redeliveries; always 1 for requests. */
  getDeliveryCount(): number {
    return this.args[2];
  }

  /** Stream sequence of an event; undefined for requests. */
  getSequence(): number | undefined {
    return this.args[3];
  }
}
