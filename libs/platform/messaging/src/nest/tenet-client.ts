import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { MessageBus, PublishOptions } from '../message-bus.port.js';

/** An event with a dedup id or headers: `client.emit(subject, new TenetRecord(event, { msgId: event.id }))`. */
export class TenetRecord<T = unknown> {
  constructor(
    readonly data: T,
    readonly options: PublishOptions = {},
  ) {}
}

/**
 * A Nest `ClientProxy` over the MessageBus: `emit` is a durable `publish` (its observable completes once the
 * stream has stored the event), `send` is a `request` answered by a `@MessagePattern` responder. The bus
 * belongs to whoever created it: `connect` and `close` neither open nor close it.
 */
export class TenetClient extends ClientProxy {
  constructor(private readonly bus: MessageBus) {
    super();
  }

  async connect(): Promise<MessageBus> {
    return this.bus;
  }

  /** Nothing to release: the bus stays open for its owner. */
  async close(): Promise<void> {
    return undefined;
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.bus.request(this.normalizePattern(packet.pattern), packet.data).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    // A core NATS request cannot be withdrawn; unsubscribing only stops listening for the answer.
    return () => undefined;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const record = packet.data instanceof TenetRecord ? (packet.data as TenetRecord) : undefined;
    await this.bus.publish(this.normalizePattern(packet.pattern), record ? record.data : packet.data, record?.options);
    return undefined as T;
  }
}
