/**
 * Runs `task(0)` … `task(count - 1)` with at most `limit` in flight, results in index order. Load tests use it
 * instead of firing every request at once: a thousand simultaneous connections overflow a loaded server's accept
 * queue and the client sees ECONNRESET — a property of the test machine, not of the code under test — while 50 in
 * flight still contend on everything the test is about.
 */
export async function inParallel<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}
