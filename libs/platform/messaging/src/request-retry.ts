import { RequestFailedError, type Headers, type MessageBus } from './message-bus.port.js';

/** The header carrying an RPC's deadline (epoch milliseconds): the responder stops its work when it passes. */
export const DEADLINE_HEADER = 'tenet-deadline-at';

export interface DeadlineRequestOptions {
  /** Epoch milliseconds: no attempt starts, and none runs, past it. */
  deadlineAt: number;
  /**
   * Longest single attempt: a responder that died mid-request (no reply ever comes) is given up on after this
   * long and the request goes out again, to whichever replica answers now. Default: the whole remaining time.
   */
  attemptTimeoutMs?: number;
  /** The requester waits this much past an attempt's deadline for the responder's own (error) reply. Default 2,000 ms. */
  graceMs?: number;
  /** First backoff between attempts, doubled each time up to 2 s. Default 100 ms. */
  backoffMs?: number;
  headers?: Headers;
  /** Cancels between attempts (the caller gave up). */
  signal?: AbortSignal;
  now?: () => number;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * A request that is retried within one deadline (issue 11 item 3): `RequestFailedError` — no responder (a NATS
 * blip, every replica restarting) or no reply within the attempt (the replica died) — is retried with backoff
 * while time remains; each attempt carries its own deadline in `DEADLINE_HEADER` (the earlier of the overall
 * deadline and the attempt's end), so the responder abandons work nobody waits for. A responder's error
 * (`RemoteHandlerError`) is the answer and is not retried. When the deadline passes, the last failure is thrown.
 */
export async function requestWithinDeadline<TRes, TReq>(bus: MessageBus, subject: string, data: TReq, options: DeadlineRequestOptions): Promise<TRes> {
  const now = options.now ?? Date.now;
  const grace = options.graceMs ?? 2_000;
  let backoff = options.backoffMs ?? 100;
  let last: unknown;
  for (let attempt = 1; ; attempt++) {
    const remaining = options.deadlineAt - now();
    if (remaining <= 0 || options.signal?.aborted) {
      throw last ?? new RequestFailedError(`request to "${subject}" not sent: its deadline passed`);
    }
    const attemptMs = Math.min(remaining, options.attemptTimeoutMs ?? remaining);
    try {
      return await bus.request<TRes, TReq>(subject, data, { timeoutMs: attemptMs + grace, headers: { ...options.headers, [DEADLINE_HEADER]: String(now() + attemptMs) } });
    } catch (error) {
      if (!(error instanceof RequestFailedError)) throw error;
      last = new RequestFailedError(`${error.message} (attempt ${attempt})`, { cause: error });
    }
    await sleep(Math.min(backoff, Math.max(0, options.deadlineAt - now())), options.signal);
    backoff = Math.min(backoff * 2, 2_000);
  }
}

/** The deadline a request carried, as an AbortSignal that fires when it passes (none: never). */
export function deadlineSignal(headers: Headers, now: () => number = Date.now): AbortSignal | undefined {
  const raw = headers[DEADLINE_HEADER];
  const at = raw === undefined ? NaN : Number(raw);
  if (!Number.isFinite(at)) return undefined;
  return AbortSignal.timeout(Math.max(0, at - now()));
}
