export { SessionDomainError, type DomainRuleViolation } from './errors.js';
export { defaultSessionConfig, sessionConfigViolations, type SessionConfig } from './session-config.js';
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
export {
  decideTurn,
  evolveTurn,
  initialTurnState,
  stepTurn,
  TURN_ERROR_TYPES,
  turnErrorTypeOf,
  type AskedToolCall,
  type ToolRunResult,
  type TurnEffect,
  type TurnErrorType,
  type TurnInput,
  type TurnMessage,
  type TurnOutcome,
  type TurnState,
} from './turn/turn-workflow.js';
