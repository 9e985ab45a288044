import { randomUUID } from 'node:crypto';
import { RequestFailedError, type Headers, type MessageBus, type Subscription } from './message-bus.port.js';
import { sleep } from './sleep.js';

/** The header carrying an RPC's deadline (epoch milliseconds): the responder stops its work when it passes. */
export const DEADLINE_HEADER = 'tenet-deadline-at';
/** The header naming one attempt, so the requester can cancel it (`RPC_CANCEL_SUBJECT`). */
export const REQUEST_ID_HEADER = 'tenet-request-id';
/** Core-NATS notification `{ request_id }`: the requester no longer wants that attempt's answer. */
export const RPC_CANCEL_SUBJECT = 'tenet.rpc.v1.cancel';

/** The requester's signal fired while the request was out: the responder was told to stop. */
export class RequestCancelledError extends Error {
  readonly code = 'MESSAGING.CANCELLED';
  override readonly name = 'RequestCancelledError';
}

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
  /** Cancels the request: an attempt in flight is abandoned and its responder told (`RPC_CANCEL_SUBJECT`). */
  signal?: AbortSignal;
  now?: () => number;
}

/**
 * A request that is retried within one deadline (docs/reliability.md#matcher-replicas-and-nats-blips): `RequestFailedError` — no responder (a NATS
 * blip, every replica restarting) or no reply within the attempt (the replica died) — is retried with backoff
 * while time remains; each attempt carries its own deadline in `DEADLINE_HEADER` (the earlier of the overall
 * deadline and the attempt's end), so the responder abandons work nobody waits for. A responder's error
 * (`RemoteHandlerError`) is the answer and is not retried. When the deadline passes, the last failure is thrown.
 */
export async function requestWithinDeadline<TRes, TReq>(
  bus: MessageBus,
  subject: string,
  data: TReq,
  options: DeadlineRequestOptions,
): Promise<TRes> {
  const now = options.now ?? Date.now;
  const grace = options.graceMs ?? 2_000;
  let backoff = options.backoffMs ?? 100;
  let last: unknown;
  for (let attempt = 1; ; attempt++) {
    const remaining = options.deadlineAt - now();
    // Cancelled between attempts (during the backoff after a failed one): a cancellation, not the last failure.
    if (options.signal?.aborted)
      throw new RequestCancelledError('the request was cancelled by its requester', last === undefined ? undefined : { cause: last });
    if (remaining <= 0) throw last ?? new RequestFailedError(`request to "${subject}" not sent: its deadline passed`);
    const attemptMs = Math.min(remaining, options.attemptTimeoutMs ?? remaining);
    const requestId = randomUUID();
    const headers = { ...options.headers, [DEADLINE_HEADER]: String(now() + attemptMs), [REQUEST_ID_HEADER]: requestId };
    try {
      return await cancellable(
        bus.request<TRes, TReq>(subject, data, { timeoutMs: attemptMs + grace, headers }),
        options.signal,
        grace,
        async () => {
          await bus.notify(RPC_CANCEL_SUBJECT, { request_id: requestId }).catch(() => undefined);
        },
      );
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

/**
 * The reply, unless the signal fires first: then `onCancel` tells the responder, which stops and answers with its
 * error (carrying, e.g., the calls it was billed for) — awaited up to `graceMs` and thrown as the `cause` of a
 * `RequestCancelledError`. A reply that won the race is returned.
 */
async function cancellable<T>(
  reply: Promise<T>,
  signal: AbortSignal | undefined,
  graceMs: number,
  onCancel: () => Promise<void>,
): Promise<T> {
  if (!signal) return reply;
  const settled = reply.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([settled, aborted]);
    if (first !== 'aborted') {
      if (first.ok) return first.value;
      throw first.error;
    }
    await onCancel();
    const late = await Promise.race([settled, sleep(graceMs).then(() => undefined)]);
    if (late?.ok) return late.value;
    throw new RequestCancelledError('the request was cancelled by its requester', late ? { cause: late.error } : undefined);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The responder's side of deadlines and cancellation: for each request, one `AbortSignal` that fires when the
 * request's deadline (`DEADLINE_HEADER`) passes or its requester cancels it (`RPC_CANCEL_SUBJECT` naming its
 * `REQUEST_ID_HEADER`). `start` listens for cancellations; call `done` when the handler finished.
 */
export class RpcCancellations {
  private readonly running = new Map<string, AbortController>();
  private subscription: Subscription | undefined;

  constructor(private readonly bus: MessageBus) {}

  async start(): Promise<void> {
    this.subscription = await this.bus.listen<{ request_id?: unknown }>(RPC_CANCEL_SUBJECT, (data) => {
      if (typeof data?.request_id === 'string') this.running.get(data.request_id)?.abort(new Error('cancelled by the requester'));
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Runs `work` with the request's signal (none when the request carries neither a deadline nor an id). */
  async run<T>(headers: Headers, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const id = headers[REQUEST_ID_HEADER];
    const deadline = deadlineSignal(headers);
    if (id === undefined) return work(deadline);
    const controller = new AbortController();
    this.running.set(id, controller);
    try {
      return await work(deadline ? AbortSignal.any([deadline, controller.signal]) : controller.signal);
    } finally {
      this.running.delete(id);
    }
  }
}
