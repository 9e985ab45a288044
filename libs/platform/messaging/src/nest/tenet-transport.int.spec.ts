import { randomUUID } from 'node:crypto';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { describeWithService, eventually, natsUrl, probeNats } from '@tenet/testing';
import { NatsMessageBus } from '../nats/nats-message-bus.js';
import { TenetTransport } from './tenet-transport.js';

const root = `nest.${randomUUID().replaceAll('-', '')}`;
const rpcRoot = `nestrpc.${randomUUID().replaceAll('-', '')}`;
const received: { n: number; attempt: number }[] = [];
const attempts = new Map<number, number>();

@Controller()
class OrdersController {
  /** Fails on the first delivery of every message, succeeds on the second. */
  @EventPattern<Record<string, { n: number }>>(`${root}.orders.*`, { maxDeliver: 3, nakDelayMs: 20 })
  async onOrder(@Payload() { n }: { n: number }): Promise<void> {
    const attempt = (attempts.get(n) ?? 0) + 1;
    attempts.set(n, attempt);
    if (attempt === 1) throw new Error('downstream not ready');
    received.push({ n, attempt });
  }

  @MessagePattern(`${rpcRoot}.quote`)
  quote(@Payload() data: { items: number }): { total: number } {
    return { total: data.items * 5 };
  }
}

@Module({ controllers: [OrdersController] })
class OrdersModule {}

describeWithService(await probeNats(), 'TenetTransport (NestJS custom transport) over real NATS', () => {
  let bus: NatsMessageBus;
  let app: INestMicroservice;
  const stream = `NEST_${randomUUID().replaceAll('-', '')}`;

  beforeAll(async () => {
    bus = await NatsMessageBus.connect({ servers: natsUrl(), name: 'nest-transport-test', streams: [{ name: stream, subjects: [`${root}.>`] }] });
    app = await NestFactory.createMicroservice(OrdersModule, { strategy: new TenetTransport({ bus, serviceName: 'orders' }), logger: false });
    await app.listen();
  });

  afterAll(async () => {
    await app.close();
    await bus.deleteStream(stream).catch(() => undefined);
    await bus.close();
  });

  it('naks a failed @EventPattern handler so the message is redelivered, then acks it', async () => {
    await bus.publish(`${root}.orders.o1`, { n: 1 });
    await bus.publish(`${root}.orders.o2`, { n: 2 });
    await eventually(() => expect(received.sort((a, b) => a.n - b.n)).toEqual([{ n: 1, attempt: 2 }, { n: 2, attempt: 2 }]));
  });

  it('answers a @MessagePattern request through the service queue group', async () => {
    await expect(bus.request(`${rpcRoot}.quote`, { items: 3 })).resolves.toEqual({ total: 15 });
  });
});
