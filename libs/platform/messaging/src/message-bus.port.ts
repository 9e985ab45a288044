/**
 * Tenet's messaging port. Two adapters implement it: JetStream + core NATS (distributed mode) and an
 * in-process bus (all-in-one mode). Services depend on this port, never on a NATS client.
 *
 * - `publish`/`consume`: durable, at-least-once integration events (JetStream streams and durable
 *   pull consumers). A handler that resolves acks the message; one that throws is redelivered after a
 *   delay until `maxDeliver`; one that throws `NonRetryableMessageError` is terminated at once.
 * - `request`/`reply`: RPC over core NATS request/reply with queue groups, so N replicas share work.
 * - `notify`/`listen`: ephemeral fan-out (every listener gets it), e.g. waking long-polls. Best effort: `notify`
 *   resolves even when the notification could not be sent (the adapter reports it), so it never fails the
 *   append or request it follows; listeners must not depend on every notification arriving.
 */

export type Headers = Record<string, string>;

export interface PublishOptions {
  /** Deduplication id (JetStream Nats-Msg-Id). Tenet sets it to the event id. */
  msgId?: string;
  headers?: Headers;
}

export interface DeliveredMessage<T = unknown> {
  subject: string;
  data: T;
  headers: Headers;
  /** 1 on first delivery, then 2, 3, … on redeliveries. */
  deliveryCount: number;
  /** Position of the message in its stream (JetStream stream sequence). */
  sequence: number;
}

export interface ConsumerOptions {
  /** Durable consumer name. Replicas using the same name compete for messages (one gets each). */
  durable: string;
  /** Subject filter (NATS wildcards allowed), e.g. `tenet.v1.session.*.message_created`. */
  filterSubject: string;
  /** Deliveries before a message is given up on. Default 5. */
  maxDeliver?: number;
  /** Redelivery delay after a failed handler; a function receives the delivery count. Default exponential from 250 ms. */
  nakDelayMs?: number | ((deliveryCount: number) => number);
  /** How long a handler may run before the server redelivers. Default 30 s. */
  ackWaitMs?: number;
  /** Where a new durable starts: all retained messages (default) or only new ones. */
  deliverPolicy?: 'all' | 'new';
  /** Messages handled at once by this consumer instance. Default 1 (in order). */
  concurrency?: number;
}

export type MessageHandler<T = unknown> = (message: DeliveredMessage<T>) => Promise<void>;
export type RequestHandler<TReq = unknown, TRes = unknown> = (data: TReq, headers: Headers) => Promise<TRes>;
export type NotificationHandler<T = unknown> = (data: T, subject: string) => void;

export interface Subscription {
  /** Stops receiving. For a durable consumer the server keeps its position for the next start. */
  stop(): Promise<void>;
}

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Headers;
}

export interface MessageBus {
  publish(subject: string, data: unknown, options?: PublishOptions): Promise<void>;
  consume<T = unknown>(options: ConsumerOptions, handler: MessageHandler<T>): Promise<Subscription>;
  request<TRes = unknown, TReq = unknown>(subject: string, data: TReq, options?: RequestOptions): Promise<TRes>;
  reply<TReq = unknown, TRes = unknown>(subject: string, queueGroup: string, handler: RequestHandler<TReq, TRes>): Promise<Subscription>;
  notify(subject: string, data: unknown): Promise<void>;
  listen<T = unknown>(subject: string, handler: NotificationHandler<T>): Promise<Subscription>;
  close(): Promise<void>;
}

/** Thrown by a handler when a message can never succeed (e.g. it fails its schema): no redelivery. */
export class NonRetryableMessageError extends Error {
  readonly code = 'MESSAGING.NON_RETRYABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NonRetryableMessageError';
  }
}

/** A request got no reply in time, or no responder was listening. */
export class RequestFailedError extends Error {
  readonly code = 'MESSAGING.REQUEST_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RequestFailedError';
  }
}

/**
 * The responder's handler threw; its message travels back to the requester, with its `code` and, when the thrown
 * error had a plain-object `details` property (e.g. the LLM calls already billed), those details.
 */
export class RemoteHandlerError extends Error {
  readonly code = 'MESSAGING.REMOTE_HANDLER';
  constructor(
    message: string,
    readonly remoteCode?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RemoteHandlerError';
  }
}
