import type { MessageBus, MessageHandler, NotificationHandler, PublishOptions, RequestHandler, RequestOptions, Subscription, ConsumerOptions } from './message-bus.port.js';

const NAMESPACE = /^[A-Za-z0-9_-]+$/;

/**
 * Keeps the core-NATS traffic of one Tenet deployment (requests, replies, notifications) apart from another's
 * on a shared NATS server: every request/reply and notify/listen subject gets the `<namespace>.` prefix, and
 * handlers see the subject without it. Durable consumers get the namespace in their name, so each deployment
 * keeps its own position; published subjects are left alone, because the JetStream stream and its `tenet.v1.>`
 * subjects are the integration surface (separate deployments that must not see each other's events belong in
 * separate NATS accounts).
 */
export function withSubjectNamespace(bus: MessageBus, namespace: string): MessageBus {
  if (!NAMESPACE.test(namespace)) throw new TypeError(`namespace "${namespace}" must match ${NAMESPACE.source}`);
  const prefix = `${namespace}.`;
  const inside = (subject: string): string => prefix + subject;
  const outside = (subject: string): string => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);
  return {
    publish: (subject: string, data: unknown, options?: PublishOptions) => bus.publish(subject, data, options),
    consume: <T>(options: ConsumerOptions, handler: MessageHandler<T>) => bus.consume({ ...options, durable: `${namespace}_${options.durable}` }, handler),
    request: <TRes, TReq>(subject: string, data: TReq, options?: RequestOptions) => bus.request<TRes, TReq>(inside(subject), data, options),
    reply: <TReq, TRes>(subject: string, queueGroup: string, handler: RequestHandler<TReq, TRes>): Promise<Subscription> => bus.reply(inside(subject), queueGroup, handler),
    notify: (subject: string, data: unknown) => bus.notify(inside(subject), data),
    listen: <T>(subject: string, handler: NotificationHandler<T>) => bus.listen<T>(inside(subject), (data, subject) => handler(data, outside(subject))),
    close: () => bus.close(),
  };
}
