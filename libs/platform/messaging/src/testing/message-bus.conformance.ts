import { randomUUID } from 'node:crypto';
import { eventually } from '@tenet/testing';
import { NoStreamForSubjectError } from '../errors.js';
import {
  NonRetryableMessageError,
  RemoteHandlerError,
  RequestFailedError,
  type DeliveredMessage,
  type MessageBus,
  type Subscription,
} from '../message-bus.port.js';
import type { StreamSpec } from '../subjects.js';
import { sleep } from '../sleep.js';

export interface MessageBusHarness {
  bus: MessageBus;
  createStream(spec: StreamSpec): Promise<void>;
  /** Deletes what the test created and closes the bus. */
  dispose(): Promise<void>;
}

/**
 * The one suite every MessageBus adapter must pass (JetStream + core NATS, in-process). Each test works in
 * its own stream and subjects, so suites can run against a shared server.
 */
export function messageBusConformance(name: string, factory: () => Promise<MessageBusHarness>): void {
  describe(`MessageBus conformance: ${name}`, () => {
    let harness: MessageBusHarness;
    let bus: MessageBus;
    let root: string;
    /** RPC and notifications use core NATS subjects outside every stream (a stream would answer requests). */
    let rpc: string;
    let subs: Subscription[];

    beforeEach(async () => {
      harness = await factory();
      bus = harness.bus;
      root = `conf.${randomUUID().replaceAll('-', '')}`;
      rpc = `confrpc.${randomUUID().replaceAll('-', '')}`;
      subs = [];
      await harness.createStream({ name: `CONF_${randomUUID().replaceAll('-', '')}`, subjects: [`${root}.>`], duplicateWindowMs: 60_000 });
    });

    afterEach(async () => {
      await Promise.all(subs.map((s) => s.stop()));
      await harness.dispose();
    });

    const consume = async (
      durable: string,
      filterSubject: string,
      handler: (m: DeliveredMessage<{ n: number }>) => Promise<void>,
      extra: Partial<Parameters<MessageBus['consume']>[0]> = {},
    ) => {
      const sub = await bus.consume<{ n: number }>({ durable, filterSubject, nakDelayMs: 20, ...extra }, handler);
      subs.push(sub);
      return sub;
    };

    it('delivers published messages in order with data, headers and a first delivery count of 1', async () => {
      const got: DeliveredMessage<{ n: number }>[] = [];
      await consume('in-order', `${root}.orders.*`, async (m) => void got.push(m));
      for (let n = 0; n < 5; n++) await bus.publish(`${root}.orders.o${n}`, { n }, { headers: { 'x-trace': `t${n}` } });
      await eventually(() => expect(got).toHaveLength(5));
      expect(got.map((m) => m.data.n)).toEqual([0, 1, 2, 3, 4]);
      expect(got.map((m) => m.subject)).toEqual([0, 1, 2, 3, 4].map((n) => `${root}.orders.o${n}`));
      expect(got.every((m) => m.deliveryCount === 1)).toBe(true);
      expect(got[2]!.headers['x-trace']).toBe('t2');
    });

    it('keeps a durable position across a consumer restart and delivers what was published while it was down', async () => {
      const got: number[] = [];
      const first = await consume('restartable', `${root}.>`, async (m) => void got.push(m.data.n));
      await bus.publish(`${root}.a`, { n: 1 });
      await eventually(() => expect(got).toEqual([1]));
      await first.stop();
      subs = subs.filter((s) => s !== first);
      await bus.publish(`${root}.a`, { n: 2 });
      await bus.publish(`${root}.a`, { n: 3 });
      await sleep(50);
      expect(got).toEqual([1]);
      await consume('restartable', `${root}.>`, async (m) => void got.push(m.data.n));
      await eventually(() => expect(got).toEqual([1, 2, 3]));
    });

    it('redelivers a message whose handler failed, with the delivery count increased', async () => {
      const attempts: number[] = [];
      await consume('retrying', `${root}.>`, async (m) => {
        attempts.push(m.deliveryCount);
        if (m.deliveryCount === 1) throw new Error('transient');
      });
      await bus.publish(`${root}.x`, { n: 1 });
      await eventually(() => expect(attempts).toEqual([1, 2]));
    });

    it('stops after maxDeliver attempts and moves on to the next message', async () => {
      const attempts: number[] = [];
      const handled: number[] = [];
      await consume(
        'bounded',
        `${root}.>`,
        async (m) => {
          if (m.data.n === 1) {
            attempts.push(m.deliveryCount);
            throw new Error('always fails');
          }
          handled.push(m.data.n);
        },
        { maxDeliver: 3 },
      );
      await bus.publish(`${root}.x`, { n: 1 });
      await eventually(() => expect(attempts).toEqual([1, 2, 3]));
      await bus.publish(`${root}.x`, { n: 2 });
      await eventually(() => expect(handled).toEqual([2]));
      await sleep(200);
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('never redelivers a message rejected with NonRetryableMessageError', async () => {
      const attempts: number[] = [];
      const handled: number[] = [];
      await consume('poison', `${root}.>`, async (m) => {
        if (m.data.n === 1) {
          attempts.push(m.deliveryCount);
          throw new NonRetryableMessageError('fails its schema');
        }
        handled.push(m.data.n);
      });
      await bus.publish(`${root}.x`, { n: 1 });
      await bus.publish(`${root}.x`, { n: 2 });
      await eventually(() => expect(handled).toEqual([2]));
      await sleep(200);
      expect(attempts).toEqual([1]);
    });

    it('drops a republished message with the same msgId', async () => {
      const got: number[] = [];
      await consume('dedup', `${root}.>`, async (m) => void got.push(m.data.n));
      const id = randomUUID();
      await bus.publish(`${root}.x`, { n: 1 }, { msgId: id });
      await bus.publish(`${root}.x`, { n: 1 }, { msgId: id });
      await bus.publish(`${root}.x`, { n: 2 }, { msgId: randomUUID() });
      await eventually(() => expect(got).toEqual([1, 2]));
      await sleep(100);
      expect(got).toEqual([1, 2]);
    });

    it('shares one durable between competing consumers: each message handled exactly once, by either', async () => {
      const byConsumer: Record<'a' | 'b', number[]> = { a: [], b: [] };
      const slowly = (who: 'a' | 'b') => async (m: DeliveredMessage<{ n: number }>) => {
        await sleep(5);
        byConsumer[who].push(m.data.n);
      };
      await consume('workers', `${root}.jobs.>`, slowly('a'));
      await consume('workers', `${root}.jobs.>`, slowly('b'));
      const N = 40;
      await Promise.all(Array.from({ length: N }, (_, n) => bus.publish(`${root}.jobs.j`, { n })));
      await eventually(() => expect(byConsumer.a.length + byConsumer.b.length).toBe(N));
      await sleep(100);
      const all = [...byConsumer.a, ...byConsumer.b].sort((x, y) => x - y);
      expect(all).toEqual([...Array(N).keys()]);
      expect(byConsumer.a.length).toBeGreaterThan(0);
      expect(byConsumer.b.length).toBeGreaterThan(0);
    });

    it('runs at most `concurrency` handlers of one consumer at once', async () => {
      for (let n = 0; n < 8; n++) await bus.publish(`${root}.bulk`, { n });
      let active = 0;
      let peak = 0;
      const done: number[] = [];
      await consume(
        'parallel',
        `${root}.bulk`,
        async (m) => {
          peak = Math.max(peak, ++active);
          await sleep(30);
          active -= 1;
          done.push(m.data.n);
        },
        { concurrency: 3 },
      );
      await eventually(() => expect(done).toHaveLength(8));
      expect(peak).toBe(3);
      expect([...done].sort((x, y) => x - y)).toEqual([...Array(8).keys()]);
    });

    it('refuses a durable publish to a subject that no stream captures', async () => {
      await expect(bus.publish(`nostream.${randomUUID()}`, { n: 1 })).rejects.toBeInstanceOf(NoStreamForSubjectError);
    });

    it('answers each request from exactly one member of a queue group', async () => {
      const handledBy: string[] = [];
      const subject = `${rpc}.add`;
      for (const who of ['r1', 'r2']) {
        subs.push(
          await bus.reply<{ a: number; b: number }, { sum: number; by: string }>(subject, 'adders', async ({ a, b }) => {
            handledBy.push(who);
            return { sum: a + b, by: who };
          }),
        );
      }
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => bus.request<{ sum: number; by: string }>(subject, { a: i, b: 1 }, { timeoutMs: 5_000 })),
      );
      expect(replies.map((r) => r.sum)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(handledBy).toHaveLength(30);
      expect(new Set(handledBy)).toEqual(new Set(['r1', 'r2']));
    });

    it('carries a responder error back to the requester with its code', async () => {
      const subject = `${rpc}.fail`;
      subs.push(
        await bus.reply(subject, 'failers', async () => {
          throw Object.assign(new Error('agent not found'), { code: 'AGENT.NOT_FOUND' });
        }),
      );
      const error = await bus.request(subject, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RemoteHandlerError);
      expect(error).toMatchObject({ message: 'agent not found', remoteCode: 'AGENT.NOT_FOUND' });
    });

    it('fails a request nobody answers, and one that is not answered in time', async () => {
      await expect(bus.request(`${rpc}.nobody`, {}, { timeoutMs: 500 })).rejects.toBeInstanceOf(RequestFailedError);
      const subject = `${rpc}.slow`;
      subs.push(await bus.reply(subject, 'slow', () => sleep(1_000)));
      await expect(bus.request(subject, {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(RequestFailedError);
    });

    it('fans a notification out to every listener', async () => {
      const a: unknown[] = [];
      const b: string[] = [];
      subs.push(await bus.listen(`${rpc}.wake.*`, (data) => void a.push(data)));
      subs.push(await bus.listen(`${rpc}.wake.>`, (_data, subject) => void b.push(subject)));
      await bus.notify(`${rpc}.wake.s1`, { offset: 3 });
      await eventually(() => {
        expect(a).toEqual([{ offset: 3 }]);
        expect(b).toEqual([`${rpc}.wake.s1`]);
      });
    });
  });
}
