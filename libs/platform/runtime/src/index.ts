export {
  DEFAULT_KNOWLEDGE_LIMITS,
  DEFAULT_STREAM_LIMITS,
  loadPlatformConfig,
  PlatformConfigError,
  type KnowledgeLimits,
  type PlatformConfig,
} from './platform-config.js';
export { callerWorkspaceOf, REQUEST_CALLER } from './request-caller.js';
export {
  openPlatform,
  tenetStream,
  tenetStreamFor,
  tenetStreamsFor,
  tenetStreamV2,
  type PlatformAdapters,
  type ReadinessCheck,
} from './platform-adapters.js';
export { openBudgetStore, PlatformModule } from './platform.module.js';
export {
  BUDGET_STORE,
  RATE_LIMITER,
  EVENT_LOG_RELAY,
  EVENT_STORE,
  MESSAGE_BUS,
  PLATFORM_CONFIG,
  PLATFORM_DESCRIPTION,
  PLATFORM_READINESS,
  SCHEDULER,
  TENET_CONFIG,
} from './tokens.js';
export { EventWorkspaces, publishedEvents } from './event-workspaces.js';
