import { SessionDomainError } from './errors.js';
import { sessionConfigViolations, type SessionConfig } from './session-config.js';

/**
 * Session lifecycle (docs/data-model.md#sessions) as a decider: `decide(command, state)` returns events, `evolve` folds
 * them, and `effectsOf` turns events into timer effects (data, not calls) for the app to dispatch to the
 * scheduling port. Times are epoch milliseconds passed in by the caller; this module never reads a clock.
 *
 * Two choices worth stating: the idle timer runs from AwaitingInput as well as Active (after a
 * reply the session waits for the customer, and that is exactly when it goes idle), and `ttl_secs` — "maximum
 * session duration" — expires the session from any live state, not only from Idle.
 */

export type SessionStatus = 'Active' | 'Idle' | 'AwaitingInput' | 'AwaitingTool' | 'Completed' | 'Expired';

type Event<T extends string, D> = { type: T; data: D };

export type SessionStarted = Event<
  'SessionStarted',
  { sessionId: string; agentId: string; config: SessionConfig; at: number; expiresAt?: number }
>;
export type SessionActivated = Event<'SessionActivated', { at: number; activity: number }>;
export type SessionAwaitingInput = Event<'SessionAwaitingInput', { at: number }>;
export type SessionAwaitingTool = Event<'SessionAwaitingTool', { at: number }>;
export type SessionBecameIdle = Event<'SessionBecameIdle', { at: number }>;
export type SessionCompleted = Event<'SessionCompleted', { at: number; reason: string }>;
export type SessionExpired = Event<'SessionExpired', { at: number; reason: 'ttl' | 'expires_at' }>;

export type SessionEvent =
  SessionStarted | SessionActivated | SessionAwaitingInput | SessionAwaitingTool | SessionBecameIdle | SessionCompleted | SessionExpired;

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; agentId: string; config: SessionConfig; expiresAt?: number; now: number }
  /** Customer (or human agent) activity: a message, a UI event. */
  | { type: 'RecordActivity'; now: number }
  | { type: 'AwaitInput'; now: number }
  | { type: 'AwaitTool'; now: number }
  | { type: 'CompleteTool'; now: number }
  /** The idle timer fired. `activity` is the activity counter it was armed for; a stale timer is ignored. */
  | { type: 'ElapseIdleTimeout'; activity: number; now: number }
  /** The lifetime timer fired (ttl_secs or expires_at, whichever is earlier). */
  | { type: 'ElapseLifetime'; now: number }
  | { type: 'CompleteSession'; reason: string; now: number };

export type SessionState =
  | { status: 'NotStarted' }
  | {
      status: SessionStatus;
      sessionId: string;
      agentId: string;
      config: SessionConfig;
      createdAt: number;
      lastActivityAt: number;
      expiresAt?: number;
      /** Increments on every activity, so idle timers armed earlier can be recognised as stale. */
      activity: number;
      /** Why a Completed session ended (e.g. `completed`, `abandoned`). */
      endReason?: string;
    };

export const initialSessionState = (): SessionState => ({ status: 'NotStarted' });

type Started = Exclude<SessionState, { status: 'NotStarted' }>;

const terminal = (status: SessionStatus): boolean => status === 'Completed' || status === 'Expired';

function started(state: SessionState): Started {
  if (state.status === 'NotStarted') throw new SessionDomainError('SESSION.NOT_STARTED', 'the session has not been started');
  return state;
}

function transition(state: Started, command: SessionCommand['type'], allowed: SessionStatus[]): void {
  if (!allowed.includes(state.status)) {
    throw new SessionDomainError('SESSION.INVALID_TRANSITION', `${command} is not allowed while the session is ${state.status}`);
  }
}

/** The moment the session's lifetime ends: ttl_secs after creation, or expires_at if that is sooner. */
export const lifetimeEndsAt = (state: Started): number => {
  const ttlEnd = state.createdAt + state.config.ttl_secs * 1000;
  return state.expiresAt !== undefined ? Math.min(ttlEnd, state.expiresAt) : ttlEnd;
};

export function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  if (command.type === 'StartSession') {
    if (state.status !== 'NotStarted')
      throw new SessionDomainError('SESSION.ALREADY_STARTED', `session ${command.sessionId} already exists`);
    const violations = sessionConfigViolations(command.config, command.expiresAt, command.now);
    if (violations.length > 0) {
      throw new SessionDomainError('SESSION.INVALID_CONFIG', violations.map((v) => `${v.field} ${v.rule}`).join('; '), violations);
    }
    const data: SessionStarted['data'] = {
      sessionId: command.sessionId,
      agentId: command.agentId,
      config: command.config,
      at: command.now,
    };
    if (command.expiresAt !== undefined) data.expiresAt = command.expiresAt;
    return [{ type: 'SessionStarted', data }];
  }

  const current = started(state);
  switch (command.type) {
    case 'RecordActivity':
      transition(current, command.type, ['Active', 'Idle', 'AwaitingInput']);
      return [{ type: 'SessionActivated', data: { at: command.now, activity: current.activity + 1 } }];
    case 'AwaitInput':
      transition(current, command.type, ['Active']);
      return [{ type: 'SessionAwaitingInput', data: { at: command.now } }];
    case 'AwaitTool':
      transition(current, command.type, ['Active']);
      return [{ type: 'SessionAwaitingTool', data: { at: command.now } }];
    case 'CompleteTool':
      transition(current, command.type, ['AwaitingTool']);
      return [{ type: 'SessionActivated', data: { at: command.now, activity: current.activity + 1 } }];
    case 'ElapseIdleTimeout':
      // Timers are at-least-once and may race with activity: a stale or late timer is a no-op, not an error.
      if (command.activity !== current.activity || !(current.status === 'Active' || current.status === 'AwaitingInput')) return [];
      return [{ type: 'SessionBecameIdle', data: { at: command.now } }];
    case 'ElapseLifetime':
      if (terminal(current.status) || command.now < lifetimeEndsAt(current)) return [];
      return [
        {
          type: 'SessionExpired',
          data: { at: command.now, reason: current.expiresAt !== undefined && current.expiresAt <= command.now ? 'expires_at' : 'ttl' },
        },
      ];
    case 'CompleteSession':
      transition(current, command.type, ['Active', 'Idle', 'AwaitingInput', 'AwaitingTool']);
      return [{ type: 'SessionCompleted', data: { at: command.now, reason: command.reason } }];
    default: {
      const exhaustive: never = command;
      throw new SessionDomainError('SESSION.INVALID_TRANSITION', `unknown command ${JSON.stringify(exhaustive)}`);
    }
  }
}

export function evolve(state: SessionState, event: SessionEvent): SessionState {
  if (event.type === 'SessionStarted') {
    const { sessionId, agentId, config, at, expiresAt } = event.data;
    const next: Started = { status: 'Active', sessionId, agentId, config, createdAt: at, lastActivityAt: at, activity: 0 };
    if (expiresAt !== undefined) next.expiresAt = expiresAt;
    return next;
  }
  if (state.status === 'NotStarted') return state;
  switch (event.type) {
    case 'SessionActivated':
      return { ...state, status: 'Active', lastActivityAt: event.data.at, activity: event.data.activity };
    case 'SessionAwaitingInput':
      return { ...state, status: 'AwaitingInput' };
    case 'SessionAwaitingTool':
      return { ...state, status: 'AwaitingTool' };
    case 'SessionBecameIdle':
      return { ...state, status: 'Idle' };
    case 'SessionCompleted':
      return { ...state, status: 'Completed', endReason: event.data.reason };
    case 'SessionExpired':
      return { ...state, status: 'Expired' };
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

export const foldSession = (events: readonly SessionEvent[], from: SessionState = initialSessionState()): SessionState =>
  events.reduce(evolve, from);

/** Timer effects as data; the app dispatches them to the scheduling port (BullMQ or in-process). */
export type SessionEffect =
  | { kind: 'Schedule'; timer: 'idle'; sessionId: string; jobId: string; delayMs: number; activity: number }
  | { kind: 'Schedule'; timer: 'lifetime'; sessionId: string; jobId: string; delayMs: number }
  | { kind: 'Cancel'; timer: 'idle' | 'lifetime'; sessionId: string; jobId: string };

export const idleTimerId = (sessionId: string, activity: number): string => `idle-${sessionId}-${activity}`;
export const lifetimeTimerId = (sessionId: string): string => `lifetime-${sessionId}`;

/**
 * Effects of events just decided against `before`. Each activity arms a fresh idle timer with its own
 * deterministic id (so re-arming never collides with a timer that is already firing) and cancels the
 * previous one; ending the session cancels every timer.
 */
export function effectsOf(before: SessionState, events: readonly SessionEvent[]): SessionEffect[] {
  const effects: SessionEffect[] = [];
  let state = before;
  for (const event of events) {
    const previous = state;
    state = evolve(state, event);
    if (state.status === 'NotStarted') continue;
    const { sessionId } = state;
    switch (event.type) {
      case 'SessionStarted':
        effects.push(
          {
            kind: 'Schedule',
            timer: 'idle',
            sessionId,
            jobId: idleTimerId(sessionId, 0),
            delayMs: state.config.idle_timeout_secs * 1000,
            activity: 0,
          },
          {
            kind: 'Schedule',
            timer: 'lifetime',
            sessionId,
            jobId: lifetimeTimerId(sessionId),
            delayMs: lifetimeEndsAt(state) - event.data.at,
          },
        );
        break;
      case 'SessionActivated':
        if (previous.status !== 'NotStarted') {
          effects.push({ kind: 'Cancel', timer: 'idle', sessionId, jobId: idleTimerId(sessionId, previous.activity) });
        }
        effects.push({
          kind: 'Schedule',
          timer: 'idle',
          sessionId,
          jobId: idleTimerId(sessionId, state.activity),
          delayMs: state.config.idle_timeout_secs * 1000,
          activity: state.activity,
        });
        break;
      case 'SessionCompleted':
      case 'SessionExpired':
        effects.push(
          { kind: 'Cancel', timer: 'idle', sessionId, jobId: idleTimerId(sessionId, state.activity) },
          { kind: 'Cancel', timer: 'lifetime', sessionId, jobId: lifetimeTimerId(sessionId) },
        );
        break;
      default:
        break;
    }
  }
  return effects;
}

/**
 * The timers a session in `state` must have pending at `now`, as Schedule effects with the same deterministic
 * ids `effectsOf` uses: the idle timer of its current activity (while Active or AwaitingInput) and its lifetime
 * timer (until it ends), each due when the state says — or at once when that moment has passed. Scheduling them
 * again is idempotent, so a process rebuilds timers lost with the scheduler's store from the log alone.
 */
export function pendingTimers(state: SessionState, now: number): SessionEffect[] {
  if (state.status === 'NotStarted' || terminal(state.status)) return [];
  const { sessionId } = state;
  const effects: SessionEffect[] = [];
  if (state.status === 'Active' || state.status === 'AwaitingInput') {
    const dueAt = state.lastActivityAt + state.config.idle_timeout_secs * 1000;
    effects.push({
      kind: 'Schedule',
      timer: 'idle',
      sessionId,
      jobId: idleTimerId(sessionId, state.activity),
      delayMs: Math.max(0, dueAt - now),
      activity: state.activity,
    });
  }
  effects.push({
    kind: 'Schedule',
    timer: 'lifetime',
    sessionId,
    jobId: lifetimeTimerId(sessionId),
    delayMs: Math.max(0, lifetimeEndsAt(state) - now),
  });
  return effects;
}
