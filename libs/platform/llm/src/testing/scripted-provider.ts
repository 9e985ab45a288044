import type { LlmProvider, LlmRequest, LlmResponse, LlmUsage } from '../llm.port.js';
import { validateStructuredOutput } from '../structured-output.js';

type Step =
  { kind: 'value'; value: unknown } | { kind: 'compute'; compute: (request: LlmRequest) => unknown } | { kind: 'error'; error: Error };

export interface ScriptedProviderOptions {
  model?: string;
  /** Reported for every answer; a function lets a test vary it per request. Default 10 in, 5 out. */
  usage?: LlmUsage | ((request: LlmRequest) => LlmUsage);
}

/** The script had no answer left for a task kind: the behaviour under test called the LLM more than expected. */
export class ScriptExhaustedError extends Error {
  constructor(
    readonly taskKind: string,
    readonly callNumber: number,
  ) {
    super(
      `ScriptedProvider: no answer left for task "${taskKind}" (call #${callNumber} of that kind). ` +
        `Script one with answer('${taskKind}', …) or answerWith('${taskKind}', request => …).`,
    );
    this.name = 'ScriptExhaustedError';
  }
}

/**
 * An LLM for behaviour tests: answers from a per-task-kind queue, records every request, and validates each
 * answer against the request's schema exactly like a real provider, so a test cannot script an impossible answer.
 */
export class ScriptedProvider implements LlmProvider {
  readonly name = 'scripted';
  readonly model: string;
  /** Every request, in call order (including those that failed). */
  readonly requests: LlmRequest[] = [];
  private readonly queues = new Map<string, Step[]>();
  private readonly fallbacks = new Map<string, (request: LlmRequest) => unknown>();
  private readonly usage: (request: LlmRequest) => LlmUsage;

  constructor(options: ScriptedProviderOptions = {}) {
    this.model = options.model ?? 'scripted-1';
    const usage = options.usage ?? { inputTokens: 10, outputTokens: 5 };
    this.usage = typeof usage === 'function' ? usage : () => usage;
  }

  /** Queues values answered, in order, to the next requests of this task kind. */
  answer(kind: string, ...values: unknown[]): this {
    return this.push(
      kind,
      values.map((value) => ({ kind: 'value', value })),
    );
  }

  /** Queues one answer computed from the request. */
  answerWith<I = unknown>(kind: string, compute: (request: LlmRequest<I>) => unknown): this {
    return this.push(kind, [{ kind: 'compute', compute: compute as (request: LlmRequest) => unknown }]);
  }

  /** Answers every request of this kind that finds its queue empty (for tests that do not count calls). */
  answerAlways<I = unknown>(kind: string, compute: (request: LlmRequest<I>) => unknown): this {
    this.fallbacks.set(kind, compute as (request: LlmRequest) => unknown);
    return this;
  }

  /** Queues a failure (e.g. a `RateLimitedError`) for the next request of this task kind. */
  fail(kind: string, error: Error): this {
    return this.push(kind, [{ kind: 'error', error }]);
  }

  /** The requests of one task kind, in call order. */
  requestsFor<I = unknown>(kind: string): LlmRequest<I>[] {
    return this.requests.filter((r) => r.task.kind === kind) as LlmRequest<I>[];
  }

  /** Answers not yet used, per task kind (empty kinds omitted): lets a test assert the script was consumed. */
  remaining(): Record<string, number> {
    return Object.fromEntries([...this.queues].filter(([, steps]) => steps.length > 0).map(([kind, steps]) => [kind, steps.length]));
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    this.requests.push(request);
    const fallback = this.fallbacks.get(request.task.kind);
    const step = this.queues.get(request.task.kind)?.shift() ?? (fallback ? { kind: 'compute', compute: fallback } : undefined);
    if (!step) throw new ScriptExhaustedError(request.task.kind, this.requestsFor(request.task.kind).length);
    if (step.kind === 'error') throw step.error;
    const value = step.kind === 'value' ? step.value : step.compute(request);
    return {
      value: validateStructuredOutput<O>(this.name, request.schemaName, request.schema, value),
      usage: this.usage(request),
      provider: this.name,
      model: this.model,
      latencyMs: performance.now() - started,
    };
  }

  private push(kind: string, steps: Step[]): this {
    const queue = this.queues.get(kind) ?? [];
    queue.push(...steps);
    this.queues.set(kind, queue);
    return this;
  }
}
