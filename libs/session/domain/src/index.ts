export { SessionDomainError, type DomainRuleViolation } from './errors.js';
export { defaultSessionConfig, extractsContext, sessionConfigViolations, type SessionConfig } from './session-config.js';
export {
  decide,
  effectsOf,
  evolve,
  foldSession,
  idleTimerId,
  initialSessionState,
  lifetimeEndsAt,
  lifetimeTimerId,
  pendingTimers,
  type SessionCommand,
  type SessionEffect,
  type SessionEvent,
  type SessionState,
  type SessionStatus,
} from './session-lifecycle.js';
