/** Polls an assertion until it holds or the deadline passes; for asynchronous delivery in integration tests. */
export async function eventually<T>(assertion: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
