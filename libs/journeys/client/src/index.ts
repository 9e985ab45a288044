export { JourneyTimers, type JourneyTimerJob } from './journey-timers.js';
export { SESSION_JOURNAL, type SessionJournal } from './session-journal.js';
export { JourneyTurn, TurnJourneys, type DefinitionCheck, type JourneyProgress } from './turn-journeys.js';
