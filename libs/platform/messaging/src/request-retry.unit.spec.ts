import { InProcessMessageBus } from './in-process/in-process-message-bus.js';
import { RemoteHandlerError, RequestFailedError, type Subscription } from './message-bus.port.js';
import { DEADLINE_HEADER, deadlineSignal, RequestCancelledError, requestWithinDeadline } from './request-retry.js';

describe('requestWithinDeadline', () => {
  let bus: InProcessMessageBus;
  beforeEach(() => {
    bus = new InProcessMessageBus();
  });
  afterEach(async () => {
    await bus.close();
  });

  it('given a replica that dies mid-request, when the attempt times out, then the request is answered by another replica within the deadline, and each attempt carries its deadline', async () => {
    const seen: { replica: string; deadline: number }[] = [];
    let dying: Subscription | undefined;
    // Replica A takes the request and dies: it stops listening and never replies.
    dying = await bus.reply('svc.work', 'workers', async (_data, headers) => {
      seen.push({ replica: 'a', deadline: Number(headers[DEADLINE_HEADER]) });
      void dying?.stop();
      dying = undefined;
      return new Promise(() => undefined);
    });
    const answer = requestWithinDeadline<string, { n: number }>(
      bus,
      'svc.work',
      { n: 1 },
      { deadlineAt: Date.now() + 60_000, attemptTimeoutMs: 300, graceMs: 50, backoffMs: 10 },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await bus.reply('svc.work', 'workers', async (data: { n: number }, headers) => {
      seen.push({ replica: 'b', deadline: Number(headers[DEADLINE_HEADER]) });
      return `done ${data.n}`;
    });
    await expect(answer).resolves.toBe('done 1');
    expect(seen.map((s) => s.replica)).toEqual(['a', 'b']);
    expect(seen.every((s) => Number.isFinite(s.deadline))).toBe(true);
  });

  it('given no responder at first (a blip), when one appears before the deadline, then the request is retried with backoff and answered', async () => {
    const answer = requestWithinDeadline<string, null>(bus, 'svc.late', null, { deadlineAt: Date.now() + 60_000, backoffMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await bus.reply('svc.late', 'workers', async () => 'here');
    await expect(answer).resolves.toBe('here');
  });

  it('given no responder until the deadline, when it passes, then the last failure is thrown', async () => {
    await expect(requestWithinDeadline(bus, 'svc.none', null, { deadlineAt: Date.now() + 200, backoffMs: 10 })).rejects.toBeInstanceOf(
      RequestFailedError,
    );
  });

  it('given a cancel between attempts (after one failed), when the backoff ends, then it is a cancellation, not the last failure', async () => {
    const cancel = new AbortController();
    const request = requestWithinDeadline(bus, 'svc.none', null, {
      deadlineAt: Date.now() + 60_000,
      backoffMs: 200,
      signal: cancel.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the first attempt failed (no responder); in the backoff
    cancel.abort();
    await expect(request).rejects.toBeInstanceOf(RequestCancelledError);
    await expect(request).rejects.toMatchObject({ cause: expect.any(RequestFailedError) });
  });

  it('given a responder that fails, when requested, then its error (with its details) is the answer and not retried', async () => {
    let calls = 0;
    await bus.reply('svc.fail', 'workers', async () => {
      calls += 1;
      throw Object.assign(new Error('model broke'), { code: 'LLM.INVALID_OUTPUT', details: { calls: [{ input_tokens: 3 }] } });
    });
    const failed = requestWithinDeadline(bus, 'svc.fail', null, { deadlineAt: Date.now() + 10_000 });
    await expect(failed).rejects.toBeInstanceOf(RemoteHandlerError);
    await expect(failed).rejects.toMatchObject({ remoteCode: 'LLM.INVALID_OUTPUT', details: { calls: [{ input_tokens: 3 }] } });
    expect(calls).toBe(1);
  });

  it('given a deadline header, when the responder reads it, then its signal aborts when it passes', async () => {
    const signal = deadlineSignal({ [DEADLINE_HEADER]: String(Date.now() + 30) })!;
    expect(signal.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(signal.aborted).toBe(true);
    expect(deadlineSignal({})).toBeUndefined();
  });
});
