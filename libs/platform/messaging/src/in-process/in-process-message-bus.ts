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
import { nakDelayFor, subjectMatches, type StreamSpec } from '../subjects.js';

export interface InProcessMessageBusOptions {
  streams?: StreamSpec[];
}

interface StoredMessage {
  seq: number;
  subject: string;
  json: string;
  headers: Headers;
}

interface StreamState {
  spec: StreamSpec;
  messages: StoredMessage[];
  /** msgId → time (ms) until which a repeat is dropped. */
  dedup: Map<string, number>;
  lastSeq: number;
}

interface ConsumerInstance {
  handler: MessageHandler;
  concurrency: number;
  inFlight: number;
  stopped: boolean;
  idle: Set<() => void>;
}

interface DurableState {
  stream: StreamState;
  options: ConsumerOptions;
  maxDeliver: number;
  /** Highest sequence handed out for the first time. */
  cursor: number;
  /** Sequences waiting to be delivered again, with their delivery count so far. */
  redeliver: { seq: number; deliveries: number }[];
  instances: ConsumerInstance[];
  next: number;
}

interface Responder {
  subject: string;
  queue: string;
  handler: RequestHandler;
}

const copy = (data: unknown): string => JSON.stringify(data ?? null);
const parse = (json: string): unknown => JSON.parse(json);

/**
 * The all-in-one adapter: the same semantics as JetStream and core NATS inside one process. Streams retain
 * messages; a durable keeps its position across stop/start; instances of one durable compete; a failed
 * handler is redelivered after the nak delay up to maxDeliver; msgIds are deduplicated within the stream's
 * window; requests go to one responder per queue group; notifications fan out. Payloads are copied through
 * JSON at the boundary, exactly as they would be serialised on the wire, so no caller shares objects.
 * What it cannot offer is durability across a process restart — that is what the NATS adapter is for.
 */
export class InProcessMessageBus implements MessageBus {
  private readonly streams: StreamState[] = [];
  /** Subject → capturing stream (null: none), so a repeated publish does not re-match every pattern. */
  private readonly streamBySubject = new Map<string, StreamState | null>();
  private readonly durables = new Map<string, DurableState>();
  private readonly responders: Responder[] = [];
  private readonly listeners = new Set<{ subject: string; handler: NotificationHandler }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(options: InProcessMessageBusOptions = {}) {
    for (const spec of options.streams ?? []) this.ensureStream(spec);
  }

  ensureStream(spec: StreamSpec): void {
    const existing = this.streams.find((s) => s.spec.name === spec.name);
    if (existing) existing.spec = spec;
    else this.streams.push({ spec, messages: [], dedup: new Map(), lastSeq: 0 });
    this.streamBySubject.clear();
  }

  async publish(subject: string, data: unknown, options?: PublishOptions): Promise<void> {
    this.assertOpen();
    let stream = this.streamBySubject.get(subject);
    if (stream === undefined) {
      stream = this.streams.find((s) => s.spec.subjects.some((p) => subjectMatches(p, subject))) ?? null;
      if (this.streamBySubject.size >= 10_000) this.streamBySubject.clear(); // subjects carry ids: keep it bounded
      this.streamBySubject.set(subject, stream);
    }
    if (!stream) throw new NoStreamForSubjectError(subject);
    const now = Date.now();
    if (options?.msgId !== undefined) {
      // Expired ids leave from the front: a Map iterates in insertion order and every id gets the same window,
      // so the oldest entry expires first and each publish evicts in amortized O(1).
      for (const [id, t] of stream.dedup) {
        if (t > now) break;
        stream.dedup.delete(id);
      }
      const until = stream.dedup.get(options.msgId);
      if (until !== undefined && until > now) return; // duplicate inside the window: acknowledged, not stored
      stream.dedup.delete(options.msgId);
      stream.dedup.set(options.msgId, now + (stream.spec.duplicateWindowMs ?? 120_000));
    }
    const headers = { ...(options?.headers ?? {}), ...(options?.msgId !== undefined ? { 'Nats-Msg-Id': options.msgId } : {}) };
    stream.messages.push({ seq: ++stream.lastSeq, subject, json: copy(data), headers });
    // Like JetStream's max_msgs with discard-old: the oldest messages go (in chunks, so trimming stays cheap).
    const limit = stream.spec.maxMessages ?? 100_000;
    if (stream.messages.length > limit + Math.ceil(limit / 10)) stream.messages.splice(0, stream.messages.length - limit);
    for (const durable of this.durables.values()) if (durable.stream === stream) this.dispatchSoon(durable);
  }

  async consume<T = unknown>(options: ConsumerOptions, handler: MessageHandler<T>): Promise<Subscription> {
    this.assertOpen();
    let durable = this.durables.get(options.durable);
    if (!durable) {
      const stream = this.streams.find((s) =>
        s.spec.subjects.some((p) => subjectMatches(p, options.filterSubject) || subjectMatches(options.filterSubject, p)),
      );
      if (!stream) throw new NoStreamForSubjectError(options.filterSubject);
      durable = {
        stream,
        options,
        maxDeliver: options.maxDeliver ?? 5,
        cursor: options.deliverPolicy === 'new' ? stream.lastSeq : 0,
        redeliver: [],
        instances: [],
        next: 0,
      };
      this.durables.set(options.durable, durable);
    } else {
      durable.options = { ...durable.options, nakDelayMs: options.nakDelayMs, ackWaitMs: options.ackWaitMs };
      durable.maxDeliver = options.maxDeliver ?? durable.maxDeliver;
    }
    const instance: ConsumerInstance = {
      handler: handler as MessageHandler,
      concurrency: Math.max(1, options.concurrency ?? 1),
      inFlight: 0,
      stopped: false,
      idle: new Set(),
    };
    durable.instances.push(instance);
    this.dispatchSoon(durable);
    const state = durable;
    return {
      stop: async () => {
        instance.stopped = true;
        state.instances = state.instances.filter((i) => i !== instance);
        if (instance.inFlight > 0) await new Promise<void>((resolve) => instance.idle.add(resolve));
      },
    };
  }

  async request<TRes = unknown, TReq = unknown>(subject: string, data: TReq, options?: RequestOptions): Promise<TRes> {
    this.assertOpen();
    const groups = new Map<string, Responder[]>();
    for (const r of this.responders) if (subjectMatches(r.subject, subject)) groups.set(r.queue, [...(groups.get(r.queue) ?? []), r]);
    if (groups.size === 0) throw new RequestFailedError(`request to "${subject}" failed: no responders`);
    // Like NATS: one member of each queue group receives the request; the first reply wins.
    const chosen: Responder[] = [];
    for (const members of groups.values()) {
      const pick = members[Math.floor(Math.random() * members.length)];
      if (pick) chosen.push(pick);
    }
    const payload = copy(data);
    const timeoutMs = options?.timeoutMs ?? 5_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RequestFailedError(`request to "${subject}" failed: timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.timers.add(timer);
    });
    const replies = chosen.map(async (responder) => {
      try {
        return parse(copy(await responder.handler(parse(payload), { ...(options?.headers ?? {}) }))) as TRes;
      } catch (error) {
        // Whatever was thrown (an Error, an RpcException payload, a string) travels as message + code + details, as on NATS.
        const remote = parse(copy(remoteErrorOf(error))) as RemoteErrorShape;
        throw new RemoteHandlerError(remote.message, remote.code, remote.details);
      }
    });
    try {
      return await Promise.race([Promise.any(replies).catch((aggregate: AggregateError) => Promise.reject(aggregate.errors[0])), timeout]);
    } finally {
      if (timer) {
        clearTimeout(timer);
        this.timers.delete(timer);
      }
    }
  }

  async reply<TReq = unknown, TRes = unknown>(
    subject: string,
    queueGroup: string,
    handler: RequestHandler<TReq, TRes>,
  ): Promise<Subscription> {
    this.assertOpen();
    const responder: Responder = { subject, queue: queueGroup, handler: handler as RequestHandler };
    this.responders.push(responder);
    return {
      stop: async () => {
        const index = this.responders.indexOf(responder);
        if (index >= 0) this.responders.splice(index, 1);
      },
    };
  }

  async notify(subject: string, data: unknown): Promise<void> {
    this.assertOpen();
    const json = copy(data);
    for (const listener of this.listeners) {
      // A microtask, not the next turn of the loop: a long-poll woken by an append answers before the rest of the
      // appending request's work (its activity record, its timers, its own response), not after it. Still never
      // inside the notify() call itself.
      if (subjectMatches(listener.subject, subject)) queueMicrotask(() => listener.handler(parse(json), subject));
    }
  }

  async listen<T = unknown>(subject: string, handler: NotificationHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const listener = { subject, handler: handler as NotificationHandler };
    this.listeners.add(listener);
    return { stop: async () => void this.listeners.delete(listener) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const busy = [...this.durables.values()].flatMap((d) => d.instances).filter((i) => i.inFlight > 0);
    for (const durable of this.durables.values()) durable.instances = [];
    await Promise.all(busy.map((i) => new Promise<void>((resolve) => i.idle.add(resolve))));
    this.listeners.clear();
    this.responders.length = 0;
  }

  private dispatchSoon(durable: DurableState): void {
    setImmediate(() => this.dispatch(durable));
  }

  /** Hands out deliverable messages to free instances, round robin, until either runs out. */
  private dispatch(durable: DurableState): void {
    if (this.closed) return;
    for (;;) {
      const instance = this.freeInstance(durable);
      if (!instance) return;
      const next = this.nextDelivery(durable);
      if (!next) return;
      this.deliver(durable, instance, next.message, next.deliveries + 1);
    }
  }

  private freeInstance(durable: DurableState): ConsumerInstance | undefined {
    const count = durable.instances.length;
    for (let i = 0; i < count; i++) {
      const candidate = durable.instances[(durable.next + i) % count];
      if (candidate && !candidate.stopped && candidate.inFlight < candidate.concurrency) {
        durable.next = (durable.next + i + 1) % count;
        return candidate;
      }
    }
    return undefined;
  }

  private nextDelivery(durable: DurableState): { message: StoredMessage; deliveries: number } | undefined {
    for (let retry = durable.redeliver.shift(); retry; retry = durable.redeliver.shift()) {
      const message = durable.stream.messages.find((m) => m.seq === retry?.seq);
      if (message) return { message, deliveries: retry.deliveries };
    }
    const { messages } = durable.stream;
    for (let index = this.indexAfter(messages, durable.cursor); index < messages.length; index++) {
      const message = messages[index];
      if (!message) break;
      durable.cursor = message.seq;
      if (subjectMatches(durable.options.filterSubject, message.subject)) return { message, deliveries: 0 };
    }
    return undefined;
  }

  private indexAfter(messages: StoredMessage[], seq: number): number {
    // Sequences are contiguous from 1 in each stream.
    return Math.max(0, Math.min(messages.length, seq - (messages[0]?.seq ?? 1) + 1));
  }

  private deliver(durable: DurableState, instance: ConsumerInstance, message: StoredMessage, deliveryCount: number): void {
    instance.inFlight += 1;
    const done = (): void => {
      instance.inFlight -= 1;
      if (instance.inFlight === 0) for (const resolve of instance.idle) resolve();
      if (instance.inFlight === 0) instance.idle.clear();
      this.dispatchSoon(durable);
    };
    instance
      .handler({
        subject: message.subject,
        data: parse(message.json),
        headers: { ...message.headers },
        deliveryCount,
        sequence: message.seq,
      })
      .then(done, (error: unknown) => {
        if (!(error instanceof NonRetryableMessageError) && deliveryCount < durable.maxDeliver) {
          const timer = setTimeout(
            () => {
              this.timers.delete(timer);
              durable.redeliver.push({ seq: message.seq, deliveries: deliveryCount });
              this.dispatch(durable);
            },
            nakDelayFor(durable.options.nakDelayMs, deliveryCount),
          );
          this.timers.add(timer);
        }
        done();
      });
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError();
  }
}
