import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { connect, headers as createHeaders, type MsgHdrs, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import { BusClosedError, NoStreamForSubjectError } from '../errors.js';
import {
  NonRetryableMessageError,
  RemoteHandlerError,
  RequestFailedError,
  type ConsumerOptions,
  type Headers,
  type MessageBus,
  type MessageHandler,
  type NotificationHandler,
  type PublishOptions,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
} from '../message-bus.port.js';
import { nakDelayFor, type StreamSpec } from '../subjects.js';

export interface NatsMessageBusOptions {
  servers: string | string[];
  /** Connection name, visible in NATS monitoring. */
  name?: string;
  /** Streams created or updated at connect time (idempotent). */
  streams?: StreamSpec[];
}

const ms = (millis: number): number => millis * 1_000_000; // JetStream durations are nanoseconds
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (data: unknown): Uint8Array => encoder.encode(JSON.stringify(data ?? null));
const decode = (bytes: Uint8Array): unknown => (bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes)));

function toHeaders(hdrs: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!hdrs) return out;
  for (const [key, values] of hdrs) out[key] = values[0] ?? '';
  return out;
}

function fromHeaders(headers: Headers | undefined): MsgHdrs | undefined {
  if (!headers || Object.keys(headers).length === 0) return undefined;
  const hdrs = createHeaders();
  for (const [key, value] of Object.entries(headers)) hdrs.set(key, value);
  return hdrs;
}

type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: { message: string; code?: string } };

const isNotFound = (error: unknown): boolean =>
  error instanceof JetStreamApiError && (error.status === 404 || /not found/i.test(error.message));

/**
 * The distributed adapter: durable messages on JetStream (pull consumers, explicit ack, nak with delay,
 * term for poison messages), RPC and notifications on core NATS. Streams and consumers are created or
 * updated idempotently, so every replica can run the same setup at start-up.
 */
export class NatsMessageBus implements MessageBus {
  private readonly js: JetStreamClient;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
  ) {
    this.js = jetstream(nc);
  }

  static async connect(options: NatsMessageBusOptions): Promise<NatsMessageBus> {
    const nc = await connect({ servers: options.servers, ...(options.name ? { name: options.name } : {}) });
    try {
      const bus = new NatsMessageBus(nc, await jetstreamManager(nc));
      for (const stream of options.streams ?? []) await bus.ensureStream(stream);
      return bus;
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** The underlying connection, for code that needs NATS features outside the port. */
  get connection(): NatsConnection {
    return this.nc;
  }

  /** Creates the stream, or updates it when it exists with another configuration. Safe to race. */
  async ensureStream(spec: StreamSpec): Promise<void> {
    const config = {
      subjects: spec.subjects,
      duplicate_window: ms(spec.duplicateWindowMs ?? 120_000),
      max_age: ms(spec.maxAgeMs ?? 0),
    };
    try {
      const info = await this.jsm.streams.info(spec.name);
      const current = info.config;
      const same =
        current.subjects.length === config.subjects.length &&
        current.subjects.every((s, i) => s === config.subjects[i]) &&
        current.duplicate_window === config.duplicate_window &&
        current.max_age === config.max_age;
      if (!same) await this.jsm.streams.update(spec.name, config);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await this.jsm.streams.add({ name: spec.name, ...config });
      } catch (addError) {
        // Another replica created it between our info and add: converge on the wanted configuration.
        if (!(addError instanceof JetStreamApiError)) throw addError;
        await this.jsm.streams.update(spec.name, config);
      }
    }
  }

  async deleteStream(name: string): Promise<void> {
    await this.jsm.streams.delete(name);
  }

  async publish(subject: string, data: unknown, options?: PublishOptions): Promise<void> {
    this.assertOpen();
    const hdrs = fromHeaders(options?.headers);
    try {
      await this.js.publish(subject, encode(data), {
        ...(options?.msgId ? { msgID: options.msgId } : {}),
        ...(hdrs ? { headers: hdrs } : {}),
      });
    } catch (error) {
      // Nothing answers a publish to a subject no stream captures: the client reports "no responders"
      // (wrapped as JetStreamNotEnabled). The message was not stored, so the caller must know.
      const cause = error instanceof Error ? (error.cause as Error | undefined) : undefined;
      if (error instanceof Error && (error.name === 'JetStreamNotEnabled' || /no responders/i.test(`${error.message} ${cause?.message ?? ''}`))) {
        throw new NoStreamForSubjectError(subject, { cause: error });
      }
      throw error;
    }
  }

  async consume<T = unknown>(options: ConsumerOptions, handler: MessageHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const stream = await this.streamFor(options.filterSubject);
    const maxDeliver = options.maxDeliver ?? 5;
    await this.ensureConsumer(stream, options, maxDeliver);
    const consumer = await this.js.consumers.get(stream, options.durable);
    const concurrency = Math.max(1, options.concurrency ?? 1);
    // A small prefetch keeps competing replicas fair and keeps buffered messages well inside ack_wait.
    const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency * 2 });

    const inFlight = new Set<Promise<void>>();
    const handle = async (m: JsMsg): Promise<void> => {
      const deliveryCount = m.info.deliveryCount;
      try {
        await handler({ subject: m.subject, data: decode(m.data) as T, headers: toHeaders(m.headers), deliveryCount, sequence: m.seq });
        m.ack();
      } catch (error) {
        if (error instanceof NonRetryableMessageError || deliveryCount >= maxDeliver) m.term();
        else m.nak(nakDelayFor(options.nakDelayMs, deliveryCount));
      }
    };
    const loop = (async () => {
      for await (const m of messages) {
        while (inFlight.size >= concurrency) await Promise.race(inFlight);
        const task = handle(m).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
      await Promise.all(inFlight);
    })();

    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await messages.close();
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async request<TRes = unknown, TReq = unknown>(subject: string, data: TReq, options?: RequestOptions): Promise<TRes> {
    this.assertOpen();
    const hdrs = fromHeaders(options?.headers);
    let reply;
    try {
      reply = await this.nc.request(subject, encode(data), { timeout: options?.timeoutMs ?? 5_000, ...(hdrs ? { headers: hdrs } : {}) });
    } catch (error) {
      throw new RequestFailedError(`request to "${subject}" failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const envelope = decode(reply.data) as ReplyEnvelope | undefined;
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.ok !== 'boolean') {
      // e.g. a JetStream PubAck: the subject is captured by a stream, and RPC subjects must not be.
      throw new RequestFailedError(`request to "${subject}" got a reply that is not a Tenet RPC reply; is the subject captured by a JetStream stream?`);
    }
    if (!envelope.ok) throw new RemoteHandlerError(envelope.error.message, envelope.error.code);
    return envelope.data as TRes;
  }

  async reply<TReq = unknown, TRes = unknown>(subject: string, queueGroup: string, handler: RequestHandler<TReq, TRes>): Promise<Subscription> {
    this.assertOpen();
    const sub: NatsSubscription = this.nc.subscribe(subject, {
      queue: queueGroup,
      callback: (error, msg) => {
        if (error) return;
        void (async () => {
          let envelope: ReplyEnvelope;
          try {
            envelope = { ok: true, data: await handler(decode(msg.data) as TReq, toHeaders(msg.headers)) };
          } catch (handlerError) {
            const e = handlerError as { message?: string; code?: unknown };
            envelope = { ok: false, error: { message: e.message ?? String(handlerError), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
          }
          msg.respond(encode(envelope));
        })();
      },
    });
    await this.nc.flush(); // the subscription is registered on the server before we report ready
    return this.track(() => sub.drain());
  }

  async notify(subject: string, data: unknown): Promise<void> {
    this.assertOpen();
    this.nc.publish(subject, encode(data));
  }

  async listen<T = unknown>(subject: string, handler: NotificationHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const sub = this.nc.subscribe(subject, {
      callback: (error, msg) => {
        if (!error) handler(decode(msg.data) as T, msg.subject);
      },
    });
    await this.nc.flush();
    return this.track(() => sub.drain());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop().catch(() => undefined)));
    await this.nc.drain();
  }

  private track(stop: () => Promise<void>): Subscription {
    const subscription: Subscription = {
      stop: async () => {
        if (!this.subscriptions.delete(subscription)) return;
        await stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  private async streamFor(subject: string): Promise<string> {
    try {
      return await this.jsm.streams.find(subject);
    } catch (error) {
      throw new NoStreamForSubjectError(subject, { cause: error });
    }
  }

  private async ensureConsumer(stream: string, options: ConsumerOptions, maxDeliver: number): Promise<void> {
    const ackWait = ms(options.ackWaitMs ?? 30_000);
    try {
      const info = await this.jsm.consumers.info(stream, options.durable);
      if (info.config.max_deliver !== maxDeliver || info.config.ack_wait !== ackWait) {
        await this.jsm.consumers.update(stream, options.durable, { max_deliver: maxDeliver, ack_wait: ackWait });
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // Identical concurrent adds from several replicas are accepted by the server (idempotent create).
      await this.jsm.consumers.add(stream, {
        durable_name: options.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: options.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
        filter_subject: options.filterSubject,
        max_deliver: maxDeliver,
        ack_wait: ackWait,
      });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError();
  }
}
