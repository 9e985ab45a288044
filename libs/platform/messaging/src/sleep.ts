import { setTimeout as wait } from 'node:timers/promises';

/**
 * Waits `ms`, or less when `signal` aborts — then it resolves too (a retry loop checks its signal after the wait
 * and stops there), unlike `timers/promises`, which rejects. Tenet's one sleep.
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  signal?.aborted
    ? Promise.resolve()
    : wait(ms, undefined, signal ? { signal } : {}).catch((error: unknown) => {
        if (signal?.aborted) return;
        throw error;
      });
