export { type EventView, type SessionEventInput } from './event-view.js';
export { sessionActivity, type SessionActivity } from './session-activity.js';
export { foldSessionIndexEntry, type SessionIndexEntry } from './session-index.js';
export { SessionTimers } from './session-timers.js';
export { SESSION_MODES, type SessionDetailView, type SessionMode, type SessionView } from './session-view.js';
export { sessionAppendedSubject, SessionEventsService, storedTypesFor, toEventView, type EventFilter } from './session-events.service.js';
export * from './sessions.repository.js';
