import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The behaviour behind every test tool server (openapi, mcp, sdk), so one conformance suite can check the
 * three adapters against the same tools. It counts requests and effects per `Idempotency-Key`: a repeated key
 * (a retry, a redo after a crash) joins or replays the first execution instead of causing a second effect.
 */
export type BackendOutcome = { kind: 'ok'; data: unknown } | { kind: 'unavailable' } | { kind: 'tool_error'; message: string };

export const TEST_TOOLS = [
  {
    name: 'get_order',
    description: 'Status of an order',
    parameters: { order_id: { type: 'string', description: 'The order number' } },
    required: ['order_id'],
  },
  {
    name: 'flaky',
    description: 'Answers 503 to the first attempts of each key, then succeeds',
    parameters: { order_id: { type: 'string' } },
    required: ['order_id'],
  },
  { name: 'slow', description: 'Takes `ms` milliseconds', parameters: { ms: { type: 'integer' } }, required: ['ms'] },
  { name: 'fail', description: 'Always reports an error', parameters: {}, required: [] },
  { name: 'big', description: 'Answers `bytes` bytes of data', parameters: { bytes: { type: 'integer' } }, required: ['bytes'] },
] as const;

export class ToolBackend {
  /** Requests seen per idempotency key (every attempt, every redo). */
  readonly requests = new Map<string, number>();
  /** Effects per idempotency key: how often a tool actually did its work. Must stay 1. */
  readonly effects = new Map<string, number>();
  /** Every Idempotency-Key header value seen, in order (absent keys recorded as ''). */
  readonly keys: string[] = [];
  private readonly executions = new Map<string, Promise<BackendOutcome>>();

  constructor(readonly options: { failuresBeforeSuccess?: number } = {}) {}

  totalEffects(): number {
    return [...this.effects.values()].reduce((sum, count) => sum + count, 0);
  }

  async run(key: string | undefined, tool: string, args: Record<string, unknown>): Promise<BackendOutcome> {
    const id = key ?? '';
    this.keys.push(id);
    const seen = (this.requests.get(id) ?? 0) + 1;
    this.requests.set(id, seen);
    if (tool === 'flaky' && seen <= (this.options.failuresBeforeSuccess ?? 2)) return { kind: 'unavailable' };
    if (tool === 'fail') return { kind: 'tool_error', message: 'the order system refused the request' };
    // One execution per key: a repeat (retry or redo) joins it or gets its recorded outcome.
    const existing = key ? this.executions.get(key) : undefined;
    if (existing) return existing;
    const execution = this.execute(tool, args).then((outcome) => {
      if (outcome.kind === 'ok') this.effects.set(id, (this.effects.get(id) ?? 0) + 1);
      return outcome;
    });
    if (key) this.executions.set(key, execution);
    return execution;
  }

  private async execute(tool: string, args: Record<string, unknown>): Promise<BackendOutcome> {
    switch (tool) {
      case 'get_order':
      case 'flaky':
        return { kind: 'ok', data: { order_id: String(args['order_id']), status: 'shipped' } };
      case 'slow':
        await sleep(Number(args['ms'] ?? 0), undefined, { ref: false });
        return { kind: 'ok', data: { slept_ms: Number(args['ms'] ?? 0) } };
      case 'big':
        return { kind: 'ok', data: { blob: 'x'.repeat(Number(args['bytes'] ?? 0)) } };
      default:
        return { kind: 'tool_error', message: `unknown tool ${tool}` };
    }
  }
}
