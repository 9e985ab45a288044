export {
  NonRetryableMessageError,
  RemoteHandlerError,
  RequestFailedError,
  type ConsumerOptions,
  type DeliveredMessage,
  type Headers,
  type MessageBus,
  type MessageHandler,
  type NotificationHandler,
  type PublishOptions,
  type RequestHandler,
  type RequestOptions,
  type Subscription,
} from './message-bus.port.js';
export { BusClosedError, NoStreamForSubjectError } from './errors.js';
export { subjectMatches, type StreamLimits, type StreamSpec } from './subjects.js';
export { NatsMessageBus, type NatsMessageBusOptions } from './nats/nats-message-bus.js';
export { NatsLeaderLease, type LeaderLeaseListener, type NatsLeaderLeaseOptions } from './nats/nats-leader-lease.js';
export { InProcessMessageBus, type InProcessMessageBusOptions } from './in-process/in-process-message-bus.js';
export {
  TenetTransport,
  durableNameFor,
  type TenetEventExtras,
  type TenetRequestExtras,
  type TenetTransportOptions,
} from './nest/tenet-transport.js';
export { TenetClient, TenetRecord } from './nest/tenet-client.js';
export { TenetContext } from './nest/tenet-context.js';
export { TenetExceptionFilter } from './nest/tenet-exception.filter.js';
export { namespacedStream, withSubjectNamespace } from './namespaced-bus.js';
export {
  DEADLINE_HEADER,
  deadlineSignal,
  REQUEST_ID_HEADER,
  RequestCancelledError,
  requestWithinDeadline,
  RPC_CANCEL_SUBJECT,
  RpcCancellations,
  type DeadlineRequestOptions,
} from './request-retry.js';
export { sleep } from './sleep.js';
