/**
 * Which of the relays sharing one event log (and so one checkpoint) may publish. Several processes on one log
 * each run a relay; only the holder of the lease runs publish rounds, the others stand by and take over when
 * it is released or lapses. See ADR 0009.
 */
export interface RelayLeadership {
  /**
   * Begins campaigning. The listener hears `elected` when this process takes the lease and `deposed` when it
   * learns that it lost it. Resolves once the first attempt has settled, so a process that can lead leads on
   * return; an adapter that cannot reach its coordinator reports that and keeps trying instead of rejecting.
   */
  start(listener: RelayLeadershipListener): Promise<void>;
  /**
   * Whether this process holds the lease now. Asked before every publish window, so it must be cheap, and it
   * must turn false as soon as the lease may have passed to someone else (e.g. renewals failed for too long),
   * even before `deposed` is delivered.
   */
  isLeader(): boolean;
  /** Stops campaigning and gives the lease up if held, so that a standby takes over at once. */
  stop(): Promise<void>;
}

export interface RelayLeadershipListener {
  elected(): void;
  deposed(): void;
}

/**
 * How a standby tells the leader, wherever it runs, that an append committed ("kick"), so the leader runs a
 * round now instead of at its next catch-up poll. Best effort: a lost wake-up only delays publishing until
 * that poll. Carries no data — the leader reads what was committed.
 */
export interface RelayWakeups {
  send(): void | Promise<void>;
  /** Calls `onWake` for every wake-up sent by any process on the same log; `stop` ends it. */
  listen(onWake: () => void): Promise<{ stop(): Promise<void> }>;
}

/** The only relay on its log (embedded mode, tests): always the leader, elected on start. */
export function soleLeadership(): RelayLeadership {
  let started = false;
  return {
    async start(listener) {
      if (started) return;
      started = true;
      listener.elected();
    },
    isLeader: () => true,
    async stop() {
      started = false;
    },
  };
}
