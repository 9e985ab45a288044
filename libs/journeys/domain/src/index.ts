export { JourneyDomainError, type JourneyErrorCode, type JourneyRuleViolation } from './errors.js';
export {
  defaultJourneyTimeouts,
  outgoing,
  STEP_ID_PATTERN,
  STEP_KINDS,
  terminalSteps,
  validateAgentJourneys,
  validateJourney,
  type JourneyDefinition,
  type JourneyReferences,
  type JourneyStep,
  type JourneyTimeouts,
  type JourneyTransition,
  type StepKind,
} from './journey-definition.js';
export {
  abandonDueAt,
  decide,
  effectsOf,
  evolve,
  foldJourney,
  initialJourneyState,
  journeyTimerId,
  pendingConditions,
  pendingJourneyTimer,
  resumeConditions,
  transitionOrder,
  type EvaluatedConditions,
  type JourneyCommand,
  type JourneyEffect,
  type JourneyEvent,
  type JourneyState,
  type JourneyStatus,
  type StepHistoryEntry,
} from './journey-state.js';
export { evaluateJourneyConditions, isJourneyConditionId, JOURNEY_CONDITION_ID_PREFIX, journeyConditions, type JourneyCondition } from './journey-conditions.js';
export { journeyMermaid } from './mermaid.js';
