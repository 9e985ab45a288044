export {
  bindingMatchProblem,
  MATCH_FIELDS,
  resolveBinding,
  setFields,
  type BindingRule,
  type InboundOrigin,
  type MatchField,
  type Resolution,
} from './binding.js';
export { sessionKey, type ConversationAddress } from './session-key.js';
export { formatFor, MESSAGE_LIMITS, splitMessage, type MarkupTarget } from './message-format.js';
export {
  DELIVERY_STATUSES,
  earlierPending,
  evolveOutbox,
  OUTBOX_PREFIX,
  outboxStream,
  type DeliveryEntry,
  type DeliveryStatus,
  type Outbox,
  type OutboxEvent,
} from './outbox.js';
