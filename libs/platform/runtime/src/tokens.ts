/** Injection tokens for the platform ports. Services inject these, never a concrete adapter. */
export const PLATFORM_CONFIG = Symbol.for('tenet.platform.config');
/** The process's validated configuration (`TenetConfig` of `@tenet/config`): services read settings here, not from `process.env`. */
export const TENET_CONFIG = Symbol.for('tenet.platform.tenet-config');
export const EVENT_STORE = Symbol.for('tenet.platform.event-store');
export const MESSAGE_BUS = Symbol.for('tenet.platform.message-bus');
export const SCHEDULER = Symbol.for('tenet.platform.scheduler');
export const EVENT_LOG_RELAY = Symbol.for('tenet.platform.event-log-relay');
export const PLATFORM_DESCRIPTION = Symbol.for('tenet.platform.description');
/**
 * The `ReadinessCheck`s of this process's dependencies, for `/readyz` (read on every probe). A module whose own state
 * gates serving adds its check to this list when it is built (the memory store's knowledge index, `knowledge-index`).
 */
export const PLATFORM_READINESS = Symbol.for('tenet.platform.readiness');
/** Token-budget counters shared by the processes that make LLM calls: Redis (distributed) or in-process. */
export const BUDGET_STORE = Symbol.for('tenet.platform.budget-store');
/** Token buckets for rate limits, shared by gateway replicas: Redis (distributed) or in-process. */
export const RATE_LIMITER = Symbol.for('tenet.platform.rate-limiter');
