/** The same error of the same context is reported at most this often by default. */
export const REPEAT_REPORT_MS = 30_000;

/**
 * Wraps an error reporter so that the same message from the same context is passed on at most once per `everyMs`:
 * while Redis is down every BullMQ connection reports each reconnect attempt (several a second), which says nothing
 * new after the first and floods the log for the whole outage.
 */
export function reportOncePer(everyMs: number, report: (error: Error, context: string) => void): (error: Error, context: string) => void {
  const lastReported = new Map<string, number>();
  return (error, context) => {
    const key = `${context}\u0000${error.message}`;
    const now = Date.now();
    if (now - (lastReported.get(key) ?? -Infinity) < everyMs) return;
    // Bounded: messages carry addresses and counts, so keys could grow with a long, varied outage.
    if (lastReported.size >= 1_000) lastReported.clear();
    lastReported.set(key, now);
    report(error, context);
  };
}
