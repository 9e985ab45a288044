import type { ToolCallRequestV1, ToolCallResultV1 } from '@tenet/contracts';
import { ToolExecutorUnavailableError } from '../errors.js';
import { withDeadline } from './deadline.js';
import { DEFAULT_RESULT_TTL_MS, type SubmitOptions, type ToolCallHandler, type ToolWorkQueue } from './tool-work-queue.port.js';

interface Entry {
  promise: Promise<ToolCallResultV1>;
  settled: boolean;
  expiresAt: number;
}

/**
 * Embedded mode: calls run in this process, one per idempotency key while running and for the result TTL
 * afterwards. Not durable across a restart (neither is anything else in embedded mode's timers).
 */
export class InProcessToolWorkQueue implements ToolWorkQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly waiting: (() => void)[] = [];
  private handler: ToolCallHandler | undefined;
  private readonly stop = new AbortController();
  private closed = false;

  constructor(private readonly options: { resultTtlMs?: number; clock?: () => number } = {}) {}

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  async submit(request: ToolCallRequestV1, options: SubmitOptions): Promise<ToolCallResultV1> {
    if (this.closed) throw new ToolExecutorUnavailableError('the tool executor is shut down');
    this.prune();
    const key = request.idempotency_key;
    const existing = this.entries.get(key);
    if (existing) return { ...(await this.wait(existing.promise, options)), replayed: true };
    const entry: Entry = { promise: this.start(request), settled: false, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.promise.then(
      () => {
        entry.settled = true;
        entry.expiresAt = this.now() + (this.options.resultTtlMs ?? DEFAULT_RESULT_TTL_MS);
      },
      // An executor fault is not a result: the next submit of the key runs the call again.
      () => this.entries.delete(key),
    );
    return this.wait(entry.promise, options);
  }

  async process(handler: ToolCallHandler): Promise<void> {
    this.handler = handler;
    for (const resume of this.waiting.splice(0)) resume();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    await Promise.allSettled([...this.entries.values()].map((entry) => entry.promise));
  }

  private async start(request: ToolCallRequestV1): Promise<ToolCallResultV1> {
    while (!this.handler) await new Promise<void>((resume) => this.waiting.push(resume));
    return this.handler(request, this.stop.signal);
  }

  private wait(promise: Promise<ToolCallResultV1>, options: SubmitOptions): Promise<ToolCallResultV1> {
    return withDeadline(promise, options.deadlineMs, 'no tool call result', options.signal);
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.settled && entry.expiresAt <= now) this.entries.delete(key);
  }
}
