/** How long a close waits for running jobs and pending commands before it forces the connections closed. */
export const CLOSE_GRACE_MS = 10_000;

/** How long a forced close may take before nobody waits for it any more. */
export const FORCE_GRACE_MS = 2_000;

const after = <T>(ms: number, value: T): { promise: Promise<T>; cancel: () => void } => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
};

/** What BullMQ's workers, queues and queue-events objects have in common for closing. */
export interface BullMqClosable {
  close(): Promise<void>;
  /** Drops the object's own connection (resolves on ioredis' `end`, which may never come; bounded below). */
  disconnect(): Promise<void>;
}

/**
 * Closes a BullMQ worker, queue or queue-events object within bounds: waits `graceMs` for its clean close, then
 * disconnects it and waits for that at most `FORCE_GRACE_MS`. Resolves whether the close was clean.
 *
 * Both bounds are needed: ioredis never emits `end` for a client disconnected while it waits to reconnect, and
 * BullMQ waits for that `end` in `Worker.close` and `RedisConnection.disconnect` (taskforcesh/bullmq#4656), so a
 * close during or just after a Redis outage would otherwise never resolve; `Worker.close(true)` is no way out,
 * since while a close is under way BullMQ returns that same pending close. The disconnect has cleared the client's
 * reconnect timer by then, so no reconnect follows; what a forced worker close leaves is BullMQ's lock-extender
 * timer of that worker (idle without jobs) — every Tenet host exits after closing.
 */
export async function closeWithinGrace(closable: BullMqClosable, graceMs = CLOSE_GRACE_MS): Promise<boolean> {
  const closing = closable.close();
  const grace = after(graceMs, 'late' as const);
  const outcome = await Promise.race([closing.then(() => 'closed' as const), grace.promise]).finally(grace.cancel);
  if (outcome === 'closed') return true;
  closing.catch(() => undefined);
  const forceGrace = after(FORCE_GRACE_MS, undefined);
  await Promise.race([closable.disconnect().catch(() => undefined), forceGrace.promise]).finally(forceGrace.cancel);
  return false;
}

/**
 * Closes each named object within bounds, all at once; resolves the names of those that did not close cleanly
 * (for `notClosedCleanly`).
 */
export async function closeEachWithinGrace(named: Iterable<readonly [string, BullMqClosable]>): Promise<string[]> {
  const outcomes = await Promise.all([...named].map(async ([name, closable]) => ((await closeWithinGrace(closable)) ? undefined : name)));
  return outcomes.filter((name): name is string => name !== undefined);
}

/** The error to report for objects whose close had to be forced (empty: nothing to report). */
export const notClosedCleanly = (names: readonly string[]): Error | undefined =>
  names.length === 0
    ? undefined
    : new Error(`${names.join(', ')} did not close within ${CLOSE_GRACE_MS} ms (Redis unreachable?); connections dropped`);
