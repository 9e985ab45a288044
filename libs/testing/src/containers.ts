import { getContainerRuntimeClient } from 'testcontainers';

/**
 * `describe` for a suite whose store runs only in a container (MongoDB, Atlas local). Without a container runtime
 * the suite is skipped with the reason printed — also under CI, whose runners have none — and never replaced by
 * a fake standing in for the real store.
 */
export async function describeWithContainers(title: string, body: () => void): Promise<void> {
  const missing = await getContainerRuntimeClient().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  if (missing === undefined) {
    describe(title, body);
    return;
  }
  process.stderr.write(`[tenet] skipping "${title}": no container runtime (${missing})\n`);
  describe.skip(`${title} — skipped: no container runtime (${missing})`, body);
}
