import { ToolExecutorUnavailableError } from '../errors.js';

/** The promise, or `ToolExecutorUnavailableError` once `ms` passed or the caller aborted (the work itself goes on). */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(new ToolExecutorUnavailableError(`${what} within ${ms} ms`)), ms);
    const onAbort = (): void => finish(new ToolExecutorUnavailableError('the caller gave up waiting for the tool call'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: unknown, value?: T): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(value as T);
    };
    promise.then(
      (value) => finish(undefined, value),
      (error: unknown) => finish(error ?? new Error('failed')),
    );
  });
}
