import type { CallUsageV1 } from '@tenet/contracts';
import { DEADLINE_HEADER, InProcessMessageBus, RemoteHandlerError } from '@tenet/messaging';
import { loadConfig } from '@tenet/config';
import { TurnCancelled } from '@tenet/session-domain';
import { TurnDeadline } from './turn-deadline.js';
import { turnOptionsOf } from './turn-options.js';

const call: CallUsageV1 = {
  purpose: 'compose_reply',
  provider: 'openai',
  model: 'gpt',
  input_tokens: 123,
  output_tokens: 45,
  latency_ms: 1,
};

describe('TurnDeadline', () => {
  let bus: InProcessMessageBus;
  beforeEach(() => {
    bus = new InProcessMessageBus();
  });
  afterEach(async () => {
    await bus.close();
  });

  it('given a step that fails after billed calls, when requested, then those calls are metered and the error is thrown', async () => {
    await bus.reply('step', 'g', async () => {
      throw Object.assign(new Error('out of schema'), { code: 'LLM.INVALID_OUTPUT', details: { calls: [call, call] } });
    });
    const metered: CallUsageV1[][] = [];
    const deadline = new TurnDeadline(bus, { deadlineMs: 10_000, attemptTimeoutMs: 5_000 });
    await expect(deadline.request('step', {}, async (calls) => metered.push(calls))).rejects.toBeInstanceOf(RemoteHandlerError);
    expect(metered).toEqual([[call, call]]);
  });

  it('given a replica that never answers, when requested, then the step is retried within the turn deadline, each attempt carrying a deadline no later than the turn deadline', async () => {
    const deadlines: number[] = [];
    let first = true;
    await bus.reply('step', 'g', async (_data, headers) => {
      deadlines.push(Number(headers[DEADLINE_HEADER]));
      if (first) {
        first = false;
        return new Promise(() => undefined); // this replica never answers
      }
      return 'ok';
    });
    const deadline = new TurnDeadline(bus, { deadlineMs: 60_000, attemptTimeoutMs: 1_000 });
    await expect(deadline.request('step', {}, async () => undefined)).resolves.toBe('ok');
    expect(deadlines).toHaveLength(2);
    expect(deadlines.every((d) => d <= deadline.at)).toBe(true);
  });

  it('given a step in flight, when a notification shows the turn superseded, then the step is cancelled and the calls its error lists are metered', async () => {
    let cancelled = false;
    await bus.reply(
      'step',
      'g',
      (_data, headers) =>
        new Promise((_, reject) => {
          void bus.listen<{ request_id: string }>('tenet.rpc.v1.cancel', (data) => {
            if (data.request_id !== headers['tenet-request-id']) return;
            cancelled = true;
            reject(Object.assign(new Error('cancelled'), { code: 'LLM.UNAVAILABLE', details: { calls: [call] } }));
          });
        }),
    );
    const deadline = new TurnDeadline(bus, { deadlineMs: 60_000, attemptTimeoutMs: 30_000 });
    let superseded = false;
    await deadline.cancelWhen('session.appended', async () => superseded);
    const metered: CallUsageV1[][] = [];
    const step = deadline.request('step', {}, async (calls) => metered.push(calls));
    await bus.notify('session.appended', {}); // not superseded (e.g. the turn's own status)
    await new Promise((resolve) => setTimeout(resolve, 50));
    superseded = true;
    await bus.notify('session.appended', {});
    await expect(step).rejects.toBeInstanceOf(TurnCancelled);
    expect(cancelled).toBe(true);
    expect(metered).toEqual([[call]]);
    await deadline.stop();
  });

  it('takes TENET_TURN_DEADLINE_MS and TENET_MATCHER_ATTEMPT_TIMEOUT_MS from the validated configuration, which refuses nonsense', () => {
    const timing = (env: Record<string, string>) => turnOptionsOf(loadConfig('session-gateway', env)).timing;
    expect(timing({ TENET_TURN_DEADLINE_MS: '90000', TENET_MATCHER_ATTEMPT_TIMEOUT_MS: '20000' })).toEqual({
      deadlineMs: 90_000,
      attemptTimeoutMs: 20_000,
    });
    expect(timing({})).toEqual({ deadlineMs: 120_000, attemptTimeoutMs: 30_000 });
    expect(() => timing({ TENET_TURN_DEADLINE_MS: 'soon' })).toThrow(/TENET_TURN_DEADLINE_MS/);
  });
});
