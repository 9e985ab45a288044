import { deciderSpec } from '@tenet/testing';
import {
  decide,
  defaultSessionConfig,
  effectsOf,
  evolve,
  foldSession,
  initialSessionState,
  pendingTimers,
  type SessionCommand,
  type SessionEvent,
  type SessionState,
} from './index.js';

const spec = deciderSpec<SessionCommand, SessionEvent, SessionState>({ decide, evolve, initialState: initialSessionState });
const t0 = 1_800_000_000_000;
const config = { ...defaultSessionConfig, ttl_secs: 600, idle_timeout_secs: 60 };
const started: SessionEvent = { type: 'SessionStarted', data: { sessionId: 's1', agentId: 'a1', config, at: t0 } };
const activated = (activity: number, at = t0 + 1_000): SessionEvent => ({ type: 'SessionActivated', data: { at, activity } });
const awaitingInput: SessionEvent = { type: 'SessionAwaitingInput', data: { at: t0 + 2_000 } };

describe('session lifecycle', () => {
  describe('StartSession', () => {
    it('starts an Active session', () => {
      spec.given([]).when({ type: 'StartSession', sessionId: 's1', agentId: 'a1', config, now: t0 }).then([started]);
      expect(foldSession([started])).toMatchObject({ status: 'Active', activity: 0, createdAt: t0 });
    });

    it('refuses to start twice', () => {
      spec
        .given([started])
        .when({ type: 'StartSession', sessionId: 's1', agentId: 'a1', config, now: t0 })
        .thenThrows('SESSION.ALREADY_STARTED');
    });

    it.each([
      ['ttl_secs', 59, /config\.ttl_secs must be an integer from 60 to 86400/],
      ['ttl_secs', 86_401, /config\.ttl_secs/],
      ['idle_timeout_secs', 29, /config\.idle_timeout_secs must be an integer from 30 to 3600/],
      ['idle_timeout_secs', 3_601, /config\.idle_timeout_secs/],
      ['max_messages', 9, /config\.max_messages must be an integer from 10 to 1000/],
      ['max_messages', 1_001, /config\.max_messages/],
      ['max_messages', 10.5, /config\.max_messages/],
    ] as const)('rejects %s = %s naming the field and the rule', (field, value, message) => {
      spec
        .given([])
        .when({ type: 'StartSession', sessionId: 's1', agentId: 'a1', config: { ...config, [field]: value }, now: t0 })
        .thenThrows('SESSION.INVALID_CONFIG', message);
    });

    it('rejects an expires_at that is not in the future', () => {
      spec
        .given([])
        .when({ type: 'StartSession', sessionId: 's1', agentId: 'a1', config, expiresAt: t0, now: t0 })
        .thenThrows('SESSION.INVALID_CONFIG', /expires_at must be in the future/);
    });
  });

  describe('transitions', () => {
    it('Active → AwaitingInput → Active on a customer message', () => {
      spec
        .given([started])
        .when({ type: 'AwaitInput', now: t0 + 2_000 })
        .then([awaitingInput]);
      spec
        .given([started, awaitingInput])
        .when({ type: 'RecordActivity', now: t0 + 3_000 })
        .then([activated(1, t0 + 3_000)]);
    });

    it('Active → AwaitingTool → Active when the tool completes; AwaitingTool does not accept AwaitInput', () => {
      const awaitingTool: SessionEvent = { type: 'SessionAwaitingTool', data: { at: t0 + 1 } };
      spec
        .given([started])
        .when({ type: 'AwaitTool', now: t0 + 1 })
        .then([awaitingTool]);
      spec
        .given([started, awaitingTool])
        .when({ type: 'CompleteTool', now: t0 + 2 })
        .then([activated(1, t0 + 2)]);
      spec
        .given([started, awaitingTool])
        .when({ type: 'AwaitInput', now: t0 + 2 })
        .thenThrows('SESSION.INVALID_TRANSITION', /AwaitInput is not allowed while the session is AwaitingTool/);
    });

    it('goes Idle when the idle timer armed for the current activity fires', () => {
      spec
        .given([started, awaitingInput])
        .when({ type: 'ElapseIdleTimeout', activity: 0, now: t0 + 62_000 })
        .then([{ type: 'SessionBecameIdle', data: { at: t0 + 62_000 } }]);
    });

    it('ignores a stale idle timer armed before later activity', () => {
      spec
        .given([started, activated(1)])
        .when({ type: 'ElapseIdleTimeout', activity: 0, now: t0 + 61_000 })
        .thenNothingHappens();
    });

    it('an Idle session becomes Active again on activity', () => {
      const idle: SessionEvent = { type: 'SessionBecameIdle', data: { at: t0 + 61_000 } };
      spec
        .given([started, idle])
        .when({ type: 'RecordActivity', now: t0 + 70_000 })
        .then([activated(1, t0 + 70_000)]);
    });

    it('expires when the lifetime ends (ttl) and not before', () => {
      spec
        .given([started])
        .when({ type: 'ElapseLifetime', now: t0 + 599_999 })
        .thenNothingHappens();
      spec
        .given([started])
        .when({ type: 'ElapseLifetime', now: t0 + 600_000 })
        .then([{ type: 'SessionExpired', data: { at: t0 + 600_000, reason: 'ttl' } }]);
    });

    it('expires at expires_at when that is sooner than the ttl', () => {
      const withExpiry: SessionEvent = { type: 'SessionStarted', data: { ...started.data, expiresAt: t0 + 120_000 } as never };
      spec
        .given([withExpiry])
        .when({ type: 'ElapseLifetime', now: t0 + 120_000 })
        .then([{ type: 'SessionExpired', data: { at: t0 + 120_000, reason: 'expires_at' } }]);
    });

    it('a completed session accepts no activity and ignores its timers', () => {
      const completed: SessionEvent = { type: 'SessionCompleted', data: { at: t0 + 5, reason: 'customer ended' } };
      spec
        .given([started, completed])
        .when({ type: 'RecordActivity', now: t0 + 6 })
        .thenThrows('SESSION.INVALID_TRANSITION');
      spec
        .given([started, completed])
        .when({ type: 'ElapseLifetime', now: t0 + 700_000 })
        .thenNothingHappens();
      spec
        .given([started, completed])
        .when({ type: 'ElapseIdleTimeout', activity: 0, now: t0 + 700_000 })
        .thenNothingHappens();
    });

    it('commands other than StartSession need a started session', () => {
      spec.given([]).when({ type: 'RecordActivity', now: t0 }).thenThrows('SESSION.NOT_STARTED');
    });
  });

  describe('timer effects', () => {
    it('starting arms the idle timer and the lifetime timer', () => {
      expect(effectsOf(initialSessionState(), [started])).toEqual([
        { kind: 'Schedule', timer: 'idle', sessionId: 's1', jobId: 'idle-s1-0', delayMs: 60_000, activity: 0 },
        { kind: 'Schedule', timer: 'lifetime', sessionId: 's1', jobId: 'lifetime-s1', delayMs: 600_000 },
      ]);
    });

    it('activity cancels the previous idle timer and arms a new one under a new deterministic id', () => {
      expect(effectsOf(foldSession([started]), [activated(1)])).toEqual([
        { kind: 'Cancel', timer: 'idle', sessionId: 's1', jobId: 'idle-s1-0' },
        { kind: 'Schedule', timer: 'idle', sessionId: 's1', jobId: 'idle-s1-1', delayMs: 60_000, activity: 1 },
      ]);
    });

    it('ending the session cancels both timers', () => {
      const expired: SessionEvent = { type: 'SessionExpired', data: { at: t0 + 600_000, reason: 'ttl' } };
      expect(effectsOf(foldSession([started, activated(1)]), [expired])).toEqual([
        { kind: 'Cancel', timer: 'idle', sessionId: 's1', jobId: 'idle-s1-1' },
        { kind: 'Cancel', timer: 'lifetime', sessionId: 's1', jobId: 'lifetime-s1' },
      ]);
    });
  });

  describe('pendingTimers (rebuilding timers a scheduler lost, from the log alone)', () => {
    it('a live session needs its current idle timer, due from its last activity, and its lifetime timer', () => {
      const state = foldSession([started, activated(1, t0 + 10_000)]);
      expect(pendingTimers(state, t0 + 30_000)).toEqual([
        { kind: 'Schedule', timer: 'idle', sessionId: 's1', jobId: 'idle-s1-1', delayMs: 40_000, activity: 1 },
        { kind: 'Schedule', timer: 'lifetime', sessionId: 's1', jobId: 'lifetime-s1', delayMs: 570_000 },
      ]);
    });

    it('uses the same ids the decider armed, so scheduling them again is idempotent', () => {
      const armed = effectsOf(initialSessionState(), [started])
        .filter((e) => e.kind === 'Schedule')
        .map((e) => e.jobId);
      expect(pendingTimers(foldSession([started]), t0).map((e) => e.jobId)).toEqual(armed);
    });

    it('makes overdue timers due at once', () => {
      expect(pendingTimers(foldSession([started]), t0 + 3_600_000).map((e) => (e.kind === 'Schedule' ? e.delayMs : -1))).toEqual([0, 0]);
    });

    it('an Idle or AwaitingTool session has no idle timer; an ended session has none at all', () => {
      expect(
        pendingTimers(foldSession([started, { type: 'SessionBecameIdle', data: { at: t0 + 60_000 } }]), t0 + 61_000).map((e) => e.timer),
      ).toEqual(['lifetime']);
      expect(
        pendingTimers(foldSession([started, { type: 'SessionAwaitingTool', data: { at: t0 + 1_000 } }]), t0 + 2_000).map((e) => e.timer),
      ).toEqual(['lifetime']);
      expect(pendingTimers(foldSession([started, awaitingInput]), t0 + 2_000).map((e) => e.timer)).toEqual(['idle', 'lifetime']);
      expect(
        pendingTimers(foldSession([started, { type: 'SessionExpired', data: { at: t0 + 600_000, reason: 'ttl' } }]), t0 + 600_001),
      ).toEqual([]);
      expect(pendingTimers(initialSessionState(), t0)).toEqual([]);
    });
  });
});
