import type { StreamSpec } from './subjects.js';
import type {
  MessageBus,
  MessageHandler,
  NotificationHandler,
  PublishOptions,
  RequestHandler,
  RequestOptions,
  Subscription,
  ConsumerOptions,
} from './message-bus.port.js';

const NAMESPACE = /^[A-Za-z0-9_-]+$/;

/**
 * Keeps one Tenet deployment's traffic apart from another's on a shared NATS server: every subject — durable
 * publishes and consumer filters, requests and replies, notifications — gets the `<namespace>.` prefix, and
 * handlers see the subject without it. Durable consumers get the namespace in their name, so each deployment
 * keeps its own position. The JetStream stream of a namespace captures `<namespace>.tenet.v1.>` (see
 * `namespacedStream`), so a consumer of namespace A never sees namespace B's events.
 */
export function withSubjectNamespace(bus: MessageBus, namespace: string): MessageBus {
  if (!NAMESPACE.test(namespace)) throw new TypeError(`namespace "${namespace}" must match ${NAMESPACE.source}`);
  const prefix = `${namespace}.`;
  const inside = (subject: string): string => prefix + subject;
  const outside = (subject: string): string => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);
  return {
    publish: (subject: string, data: unknown, options?: PublishOptions) => bus.publish(inside(subject), data, options),
    consume: <T>(options: ConsumerOptions, handler: MessageHandler<T>) =>
      bus.consume<T>({ ...options, durable: `${namespace}_${options.durable}`, filterSubject: inside(options.filterSubject) }, (message) =>
        handler({ ...message, subject: outside(message.subject) }),
      ),
    request: <TRes, TReq>(subject: string, data: TReq, options?: RequestOptions) => bus.request<TRes, TReq>(inside(subject), data, options),
    reply: <TReq, TRes>(subject: string, queueGroup: string, handler: RequestHandler<TReq, TRes>): Promise<Subscription> =>
      bus.reply(inside(subject), queueGroup, handler),
    notify: (subject: string, data: unknown) => bus.notify(inside(subject), data),
    listen: <T>(subject: string, handler: NotificationHandler<T>) =>
      bus.listen<T>(inside(subject), (data, subject) => handler(data, outside(subject))),
    close: () => bus.close(),
  };
}

/** The stream of a namespace: its own name and subjects, so namespaces sharing a NATS server never share events. */
export function namespacedStream<S extends StreamSpec>(spec: S, namespace: string | undefined): S {
  if (namespace === undefined) return spec;
  if (!NAMESPACE.test(namespace)) throw new TypeError(`namespace "${namespace}" must match ${NAMESPACE.source}`);
  return { ...spec, name: `${spec.name}_${namespace}`, subjects: spec.subjects.map((subject) => `${namespace}.${subject}`) };
}
