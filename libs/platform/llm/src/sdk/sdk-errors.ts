import { AuthenticationError, LlmError, ProviderUnavailableError, RateLimitedError } from '../errors.js';
import { redactSecrets } from '@tenet/observability';

/** The shape both official SDKs give their HTTP errors (`APIError`): status and response headers. */
interface SdkApiError extends Error {
  status?: number | undefined;
  headers?: Headers | undefined;
}

/** The SDK's error classes, passed in so that each adapter maps only its own client's errors. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

/**
 * How long the provider asked us to wait: `retry-after-ms` (OpenAI, Anthropic), else `retry-after` in seconds or
 * as an HTTP date. Undefined when absent or unparseable.
 */
export function retryAfterMsFrom(headers: Headers | undefined, now: () => number = Date.now): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const header = headers?.get('retry-after');
  if (!header) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/** Maps an official SDK's error to Tenet's typed errors; anything that is not an SDK error (a bug) passes through. */
export function mapSdkError(error: unknown, provider: string, sdk: SdkErrorClasses): unknown {
  if (error instanceof LlmError || !(error instanceof sdk.APIError)) return error;
  const { status, headers } = error as SdkApiError;
  // The provider's text (or a proxy's, which may echo our headers) travels on in logs and RPC replies: redacted here.
  const message = redactSecrets((error as SdkApiError).message);
  if (error instanceof sdk.APIUserAbortError)
    return new ProviderUnavailableError(provider, `${provider} request aborted`, false, undefined, { cause: error });
  if (status === 401 || status === 403)
    return new AuthenticationError(provider, `${provider} rejected the credentials (HTTP ${status}): ${message}`, { cause: error });
  if (status === 429) {
    const retryAfterMs = retryAfterMsFrom(headers);
    return new RateLimitedError(
      provider,
      retryAfterMs,
      `${provider} rate limit (HTTP 429${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}): ${message}`,
      { cause: error },
    );
  }
  // No status: connection refused, reset or timed out. 408/409/5xx (and Anthropic's 529 overloaded) are transient.
  const transient = status === undefined || status === 408 || status === 409 || status >= 500;
  return new ProviderUnavailableError(
    provider,
    `${provider} call failed${status ? ` (HTTP ${status})` : ''}: ${message}`,
    transient,
    status,
    { cause: error },
  );
}
