import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  StorageType,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JetStreamPublishOptions,
  type JsMsg,
} from '@nats-io/jetstream';
import {
  connect,
  headers as createHeaders,
  type MsgHdrs,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import { BusClosedError, NoStreamForSubjectError, remoteErrorOf, type RemoteErrorShape } from '../errors.js';
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
  /**
   * Told when a consumer's pull loop fails for good (the client already rides out reconnects and missed
   * heartbeats); the loop is then restarted after a second. Default: `console.error`.
   */
  onConsumerError?: (error: unknown, durable: string) => void;
  /**
   * Pause between reconnect attempts. The client never stops trying (an outage of any length ends with the
   * connection restored, subscriptions and consumers resumed); default 1 000 ms, with up to 500 ms jitter.
   */
  reconnectTimeWaitMs?: number;
  /** Told about connection changes (disconnected, reconnected) and notifications that could not be sent. Default: `console.warn`. */
  onConnectionEvent?: (message: string) => void;
}

/**
 * `nats://user:password@host` (or `nats://token@host`), as the NATS CLI and the Go client take it: the client
 * library ignores a URL's user info, so it is moved into the connect options (and off the URLs, which the client
 * shows in errors and status). Every URL of a list must carry the same credentials, or none.
 */
export function credentialsFromUrls(urls: string | string[]): {
  servers: string[];
  auth: { user?: string; pass?: string; token?: string };
} {
  const list = (Array.isArray(urls) ? urls : urls.split(',')).map((url) => url.trim()).filter(Boolean);
  const found = new Set<string>();
  let auth: { user?: string; pass?: string; token?: string } = {};
  const servers = list.map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return text; // host:port without a scheme: nothing to take
    }
    if (url.username === '' && url.password === '') return text;
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    auth = url.password === '' ? { token: user } : { user, pass };
    found.add(`${url.username}:${url.password}`);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  });
  if (found.size > 1) throw new TypeError('NATS_URL: every server URL must carry the same credentials');
  return { servers, auth };
}

const ms = (millis: number): number => millis * 1_000_000; // JetStream durations are nanoseconds
const decoder = new TextDecoder();
/** NATS accepts a string payload and UTF-8 encodes it itself: no intermediate buffer of ours. */
const encode = (data: unknown): string => JSON.stringify(data ?? null);
const decode = (bytes: Uint8Array): unknown => (bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes)));

/** The JetStream configuration a spec states: only the fields it sets, so an update leaves the rest alone. */
function streamConfig(spec: Omit<StreamSpec, 'name'>): {
  subjects: string[];
  duplicate_window?: number;
  max_age?: number;
  max_bytes?: number;
  max_msgs?: number;
  storage?: StorageType;
} {
  return {
    subjects: spec.subjects,
    ...(spec.duplicateWindowMs === undefined ? {} : { duplicate_window: ms(spec.duplicateWindowMs) }),
    ...(spec.maxAgeMs === undefined ? {} : { max_age: ms(spec.maxAgeMs) }),
    ...(spec.maxBytes === undefined ? {} : { max_bytes: spec.maxBytes }),
    ...(spec.maxMessages === undefined ? {} : { max_msgs: spec.maxMessages }),
    ...(spec.storage === undefined ? {} : { storage: spec.storage === 'memory' ? StorageType.Memory : StorageType.File }),
  };
}

/** JetStream API error 10058: the stream name is taken (here: by a replica that raced us). */
const STREAM_NAME_IN_USE = 10_058;
const RESTART_DELAY_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), timeoutMs)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function toHeaders(hdrs: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!hdrs) return out;
  for (const [key, values] of hdrs) out[key] = values[0] ?? '';
  return out;
}

function fromHeaders(headers: Headers | undefined): MsgHdrs | undefined {
  let hdrs: MsgHdrs | undefined;
  for (const key in headers) {
    hdrs ??= createHeaders();
    hdrs.set(key, headers[key] ?? '');
  }
  return hdrs;
}

/** Builds JetStream publish options only when there is something to say: the common call allocates nothing. */
function publishOptions(options: PublishOptions | undefined): Partial<JetStreamPublishOptions> | undefined {
  if (options === undefined) return undefined;
  const headers = options.headers === undefined ? undefined : fromHeaders(options.headers);
  if (headers === undefined) return options.msgId === undefined ? undefined : { msgID: options.msgId };
  return options.msgId === undefined ? { headers } : { msgID: options.msgId, headers };
}

/**
 * Nothing answers a publish to a subject no stream captures: the client sees "no responders" and reports it
 * as JetStreamNotEnabled (also what a server without JetStream looks like — either way nothing was stored).
 * The class is not exported by @nats-io/jetstream, hence the name check.
 */
const isNoStream = (error: unknown): boolean => error instanceof Error && error.name === 'JetStreamNotEnabled';

const isNotFound = (error: unknown): boolean =>
  error instanceof JetStreamApiError && (error.status === 404 || /not found/i.test(error.message));

type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: RemoteErrorShape };

/** Turns whatever a responder threw (an Error, an RpcException payload, a string) into a reply. */
function errorEnvelope(thrown: unknown): ReplyEnvelope {
  return { ok: false, error: remoteErrorOf(thrown) };
}

/**
 * The distributed adapter: durable messages on JetStream (pull consumers, explicit ack, nak with delay,
 * term for poison messages), RPC and notifications on core NATS. Streams and consumers are created or
 * updated idempotently, so every replica can run the same setup at start-up.
 */
export class NatsMessageBus implements MessageBus {
  private readonly js: JetStreamClient;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;
  private connected = true;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly onConsumerError: (error: unknown, durable: string) => void,
    private readonly onConnectionEvent: (message: string) => void,
    /** The streams made at connect, made again at every reconnect (a server back without its store has none). */
    private readonly streams: readonly StreamSpec[] = [],
  ) {
    this.js = jetstream(nc);
    this.followStatus().catch((error: unknown) =>
      this.onConnectionEvent(`connection status no longer followed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  static async connect(options: NatsMessageBusOptions): Promise<NatsMessageBus> {
    const { servers, auth } = credentialsFromUrls(options.servers);
    const nc = await connect({
      servers,
      ...auth,
      ...(options.name ? { name: options.name } : {}),
      // The default (10 attempts, 2 s apart) gives up after ~20 s and leaves a closed connection that nothing
      // reopens: every publish then fails until the process restarts. An outage must end, not the process.
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? 1_000,
      reconnectJitter: 500,
    });
    try {
      const report =
        options.onConsumerError ??
        ((error: unknown, durable: string) => console.error(`[messaging] consumer "${durable}" failed; restarting`, error));
      const bus = new NatsMessageBus(
        nc,
        await jetstreamManager(nc),
        report,
        options.onConnectionEvent ?? ((message) => console.warn(`[messaging] ${message}`)),
        options.streams ?? [],
      );
      for (const stream of options.streams ?? []) await bus.ensureStream(stream);
      return bus;
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** Whether the connection to NATS is up right now (false while it reconnects, and once closed): for readiness. */
  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  /** Round trip to the server: resolves when NATS answers, rejects when it does not within `timeoutMs`. */
  async ping(timeoutMs = 2_000): Promise<void> {
    if (!this.isConnected()) throw new Error(`NATS is not connected (${this.nc.getServer()})`);
    await withTimeout(this.nc.flush(), timeoutMs, `NATS did not answer within ${timeoutMs} ms`);
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        this.onConnectionEvent(`disconnected from NATS ${status.server}; reconnecting until it is back`);
      } else if (status.type === 'reconnect') {
        this.connected = true;
        this.onConnectionEvent(`reconnected to NATS ${status.server}`);
        void this.restoreStreams();
      }
    }
  }

  /**
   * After a reconnect: the server may be one that lost its JetStream store (a restart without its volume), so every
   * stream this bus made at connect is made again (`ensureStream` is idempotent: an existing one is left as it is).
   * Consumers whose stream or durable went with the store end their pull and are recreated by their own loop.
   */
  private async restoreStreams(): Promise<void> {
    for (const stream of this.streams) {
      try {
        await this.ensureStream(stream);
      } catch (error) {
        if (this.closed) return;
        this.onConnectionEvent(
          `stream ${stream.name} could not be checked after the reconnect (${error instanceof Error ? error.message : String(error)}); the next reconnect tries again`,
        );
      }
    }
  }

  /** The underlying connection, for code that needs NATS features outside the port. */
  get connection(): NatsConnection {
    return this.nc;
  }

  /**
   * Creates the stream, or converges an existing one on what the spec states (subjects always; duplicate window,
   * storage and limits only when given — whatever an operator changed elsewhere is kept, because the server's
   * update merges over the current configuration). Safe to race: every replica runs the same start-up. Storage
   * cannot change in place; the server refuses that with a clear error.
   */
  async ensureStream(spec: StreamSpec): Promise<void> {
    const stated = streamConfig(spec);
    try {
      const current = (await this.jsm.streams.info(spec.name)).config as unknown as Record<string, unknown>;
      const differs = Object.entries(stated).some(([key, value]) => JSON.stringify(current[key]) !== JSON.stringify(value));
      if (differs) await this.jsm.streams.update(spec.name, stated);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const created = {
        ...streamConfig({ duplicateWindowMs: 120_000, storage: 'file', ...spec.initial, subjects: spec.subjects }),
        ...stated,
      };
      try {
        await this.jsm.streams.add({ name: spec.name, ...created });
      } catch (addError) {
        // Another replica created it between our info and add: converge on the stated configuration.
        if (!(addError instanceof JetStreamApiError) || addError.code !== STREAM_NAME_IN_USE) throw addError;
        await this.jsm.streams.update(spec.name, stated);
      }
    }
  }

  async deleteStream(name: string): Promise<void> {
    await this.jsm.streams.delete(name);
  }

  /** Hot path: no stream lookup, no option or header objects unless asked for, one JSON encoding. */
  async publish(subject: string, data: unknown, options?: PublishOptions): Promise<void> {
    if (this.closed) throw new BusClosedError();
    try {
      await this.js.publish(subject, encode(data), publishOptions(options));
    } catch (error) {
      throw isNoStream(error) ? new NoStreamForSubjectError(subject, { cause: error }) : error;
    }
  }

  async consume<T = unknown>(options: ConsumerOptions, handler: MessageHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const stream = await this.streamFor(options.filterSubject);
    const maxDeliver = options.maxDeliver ?? 5;
    await this.ensureConsumer(stream, options, maxDeliver);
    const concurrency = Math.max(1, options.concurrency ?? 1);

    const handle = async (m: JsMsg): Promise<void> => {
      const deliveryCount = m.info.deliveryCount;
      try {
        await handler({ subject: m.subject, data: decode(m.data) as T, headers: toHeaders(m.headers), deliveryCount, sequence: m.seq });
        m.ack();
      } catch (error) {
        // term at the last delivery too: the server would give up anyway, and term says so at once.
        if (error instanceof NonRetryableMessageError || deliveryCount >= maxDeliver) m.term();
        else m.nak(nakDelayFor(options.nakDelayMs, deliveryCount));
      }
    };

    let stopped = false;
    let messages: ConsumerMessages | undefined;
    let wake: (() => void) | undefined;
    const inFlight = new Set<Promise<void>>();
    const pull = async (): Promise<void> => {
      const consumer = await this.js.consumers.get(stream, options.durable);
      // A small prefetch keeps competing replicas fair and buffered messages well inside ack_wait. A missing stream or
      // durable (a server back without its store, an operator's delete) ends the pull instead of being retried for
      // ever in silence, so the loop below reports it and recreates the durable.
      messages = await consumer.consume({ max_messages: concurrency * 2, abort_on_missing_resource: true });
      if (stopped) messages.stop();
      // Messages already buffered when the iterator is stopped are still yielded and handled (a drain).
      for await (const m of messages) {
        while (inFlight.size >= concurrency) await Promise.race(inFlight);
        const task = handle(m).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    };
    const loop = (async () => {
      while (!stopped && !this.nc.isClosed()) {
        try {
          await pull();
        } catch (error) {
          if (stopped || this.nc.isClosed()) break;
          this.onConsumerError(error, options.durable);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, RESTART_DELAY_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
          // The consumer may be what went missing (deleted by an operator): recreate it before pulling again.
          if (!stopped) await this.ensureConsumer(stream, options, maxDeliver).catch(() => undefined);
        }
      }
      await Promise.all(inFlight);
    })();

    const subscription: Subscription = {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        this.subscriptions.delete(subscription);
        wake?.();
        messages?.stop();
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
      reply = await this.nc.request(
        subject,
        encode(data),
        hdrs ? { timeout: options?.timeoutMs ?? 5_000, headers: hdrs } : { timeout: options?.timeoutMs ?? 5_000 },
      );
    } catch (error) {
      throw new RequestFailedError(`request to "${subject}" failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    const envelope = decode(reply.data) as ReplyEnvelope | undefined;
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.ok !== 'boolean') {
      // e.g. a JetStream PubAck: the subject is captured by a stream, and RPC subjects must not be.
      throw new RequestFailedError(
        `request to "${subject}" got a reply that is not a Tenet RPC reply; is the subject captured by a JetStream stream?`,
      );
    }
    if (!envelope.ok) throw new RemoteHandlerError(envelope.error.message, envelope.error.code, envelope.error.details);
    return envelope.data as TRes;
  }

  async reply<TReq = unknown, TRes = unknown>(
    subject: string,
    queueGroup: string,
    handler: RequestHandler<TReq, TRes>,
  ): Promise<Subscription> {
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
            envelope = errorEnvelope(handlerError);
          }
          msg.respond(encode(envelope));
        })();
      },
    });
    await this.nc.flush(); // the subscription is registered on the server before we report ready
    return this.track(() => sub.drain());
  }

  /**
   * Best effort by contract: a notification only wakes listeners (who re-read the log), so one that cannot be
   * sent is reported and dropped — it must never fail the append or request that triggered it. While the client
   * reconnects, NATS buffers it and sends it once the connection is back.
   */
  async notify(subject: string, data: unknown): Promise<void> {
    this.assertOpen();
    try {
      this.nc.publish(subject, encode(data));
    } catch (error) {
      this.onConnectionEvent(`notification on "${subject}" not sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Notifications are best effort (see `notify`), and so is listening while the client reconnects: the client
   * registers the subscription again on the server once the connection is back, so a flush (or a drain on stop)
   * refused by a disconnected connection is reported, not thrown — a turn must not fail because it started or ended
   * its wake-up subscription during a NATS outage (docs/reliability.md#nats-outage-any-length). A closed connection still throws.
   */
  async listen<T = unknown>(subject: string, handler: NotificationHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const sub = this.nc.subscribe(subject, {
      callback: (error, msg) => {
        if (!error) handler(decode(msg.data) as T, msg.subject);
      },
    });
    await this.nc
      .flush()
      .catch((error: unknown) => this.whileReconnecting(error, `listening on "${subject}" is registered once NATS is back`));
    return this.track(() =>
      sub.drain().catch((error: unknown) => {
        sub.unsubscribe();
        this.whileReconnecting(error, `stopped listening on "${subject}" without a drain`);
      }),
    );
  }

  /** A connection-level failure while the client reconnects is reported; on a closed connection it is thrown. */
  private whileReconnecting(error: unknown, consequence: string): void {
    if (this.nc.isClosed()) throw error;
    this.onConnectionEvent(`${consequence} (${error instanceof Error ? error.message : String(error)})`);
  }

  /** Stops consumers (letting running handlers finish and ack), then drains the connection. */
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

  /**
   * Creates the durable pull consumer, or updates what may change (NATS 2.9 allows max_deliver, ack_wait and
   * the single filter_subject). The deliver policy only matters at creation and cannot be changed after.
   */
  private async ensureConsumer(stream: string, options: ConsumerOptions, maxDeliver: number): Promise<void> {
    const ackWait = ms(options.ackWaitMs ?? 30_000);
    try {
      const { config } = await this.jsm.consumers.info(stream, options.durable);
      if (config.max_deliver !== maxDeliver || config.ack_wait !== ackWait || config.filter_subject !== options.filterSubject) {
        await this.jsm.consumers.update(stream, options.durable, {
          max_deliver: maxDeliver,
          ack_wait: ackWait,
          filter_subject: options.filterSubject,
        });
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // Concurrent creates from several replicas are accepted by the server (a create of an existing
      // durable is an update on 2.9), so racing replicas converge.
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
