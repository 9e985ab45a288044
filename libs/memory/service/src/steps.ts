/**
 * Runs a stepped computation (a generator that yields between small steps, so a background caller can hand the event
 * loop back between them) to its end at once, from wherever it stands, and answers its result: what the synchronous
 * callers of `Bm25Index.capturing`/`restoring` and `parseBm25Snapshot` do.
 */
export function stepsToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
