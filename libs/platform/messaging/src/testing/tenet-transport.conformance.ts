import { randomUUID } from 'node:crypto';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { eventually } from '@tenet/testing';
import { lastValueFrom } from 'rxjs';
import { NonRetryableMessageError, RemoteHandlerError } from '../message-bus.port.js';
import { TenetClient, TenetRecord } from '../nest/tenet-client.js';
import type { TenetContext } from '../nest/tenet-context.js';
import { TenetExceptionFilter } from '../nest/tenet-exception.filter.js';
import { TenetTransport } from '../nest/tenet-transport.js';
import type { MessageBusHarness } from './message-bus.conformance.js';
import { sleep } from '../sleep.js';

const unique = (): string => randomUUID().replaceAll('-', '');

/**
 * The same Nest handlers must behave the same on every MessageBus adapter: that is the point of running
 * Nest over the port rather than over a NATS client. One Nest microservice per suite, unique subjects.
 */
export function tenetTransportConformance(name: string, factory: () => Promise<MessageBusHarness>): void {
  describe(`TenetTransport over ${name}`, () => {
    const root = `nest.${unique()}`;
    const rpc = `nestrpc.${unique()}`;
    const orders: { n: number; deliveryCount: number; sequence: number | undefined }[] = [];
    const poison: number[] = [];
    const audited: string[] = [];

    @Controller()
    class OrdersController {
      /** Fails the first delivery of every order, succeeds on the second. */
      @EventPattern<string>(`${root}.orders.*`, { maxDeliver: 3, nakDelayMs: 20 })
      async onOrder(@Payload() { n }: { n: number }, @Ctx() context: TenetContext): Promise<void> {
        if (context.getDeliveryCount() === 1) throw new Error('downstream not ready');
        orders.push({ n, deliveryCount: context.getDeliveryCount(), sequence: context.getSequence() });
      }

      /** `n: 1` can never succeed; others can. With maxDeliver 3, a nak instead of a term would show as 3 attempts. */
      @EventPattern<string>(`${root}.poison.*`, { maxDeliver: 3, nakDelayMs: 20 })
      async onPoison(@Payload() { n }: { n: number }): Promise<void> {
        poison.push(n);
        if (n === 1) throw new NonRetryableMessageError('fails its schema');
      }

      @EventPattern<string>(`${root}.audit.>`)
      async onAudit(@Payload() { id }: { id: string }): Promise<void> {
        audited.push(id);
      }

      @MessagePattern(`${rpc}.quote`)
      quote(@Payload() data: { items: number }): { total: number } {
        return { total: data.items * 5 };
      }

      @MessagePattern(`${rpc}.agent`)
      agent(): never {
        throw Object.assign(new Error('agent a-1 not found'), { code: 'AGENT.NOT_FOUND' });
      }
    }

    @Module({ controllers: [OrdersController] })
    class OrdersModule {}

    let harness: MessageBusHarness;
    let app: INestMicroservice;
    let client: TenetClient;

    beforeAll(async () => {
      harness = await factory();
      await harness.createStream({ name: `NEST_${unique()}`, subjects: [`${root}.>`] });
      app = await NestFactory.createMicroservice(OrdersModule, {
        strategy: new TenetTransport({ bus: harness.bus, serviceName: 'orders' }),
        logger: false,
      });
      app.useGlobalFilters(new TenetExceptionFilter());
      await app.listen();
      client = new TenetClient(harness.bus);
    });

    afterAll(async () => {
      await app?.close();
      await harness?.dispose();
    });

    it('naks a failed @EventPattern handler so the message is redelivered, then acks it', async () => {
      await harness.bus.publish(`${root}.orders.o1`, { n: 1 });
      await harness.bus.publish(`${root}.orders.o2`, { n: 2 });
      await eventually(() =>
        expect([...orders].sort((a, b) => a.n - b.n).map(({ n, deliveryCount }) => ({ n, deliveryCount }))).toEqual([
          { n: 1, deliveryCount: 2 },
          { n: 2, deliveryCount: 2 },
        ]),
      );
      expect(orders.every((o) => typeof o.sequence === 'number' && o.sequence > 0)).toBe(true);
      await sleep(200);
      expect(orders).toHaveLength(2); // acked after success: not delivered a third time
    });

    it('terms a message whose handler throws NonRetryableMessageError: never redelivered', async () => {
      await harness.bus.publish(`${root}.poison.p`, { n: 1 });
      await harness.bus.publish(`${root}.poison.p`, { n: 2 });
      await eventually(() => expect(poison).toContain(2));
      await sleep(300);
      expect(poison).toEqual([1, 2]);
    });

    it('emits through TenetClient as a durable publish, deduplicated by msgId', async () => {
      const id = randomUUID();
      await lastValueFrom(client.emit(`${root}.audit.created`, new TenetRecord({ id }, { msgId: id })), { defaultValue: undefined });
      await lastValueFrom(client.emit(`${root}.audit.created`, new TenetRecord({ id }, { msgId: id })), { defaultValue: undefined });
      await lastValueFrom(client.emit(`${root}.audit.created`, { id: 'plain' }), { defaultValue: undefined });
      await eventually(() => expect(audited).toEqual([id, 'plain']));
      await sleep(100);
      expect(audited).toEqual([id, 'plain']);
    });

    it('answers a @MessagePattern request through the service queue group', async () => {
      await expect(harness.bus.request(`${rpc}.quote`, { items: 3 })).resolves.toEqual({ total: 15 });
      await expect(lastValueFrom(client.send(`${rpc}.quote`, { items: 4 }))).resolves.toEqual({ total: 20 });
    });

    it('carries a @MessagePattern error and its code back to the requester', async () => {
      const error = await harness.bus.request(`${rpc}.agent`, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RemoteHandlerError);
      expect(error).toMatchObject({ message: 'agent a-1 not found', remoteCode: 'AGENT.NOT_FOUND' });
    });
  });
}
