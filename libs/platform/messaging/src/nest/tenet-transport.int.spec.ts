import { describeWithService, natsUrl, probeNats } from '@tenet/testing';
import { NatsMessageBus } from '../nats/nats-message-bus.js';
import { tenetTransportConformance } from '../testing/index.js';

describeWithService(await probeNats(), 'TenetTransport (NestJS custom transport) on a real NATS server', () => {
  tenetTransportConformance('JetStream + core NATS', async () => {
    const bus = await NatsMessageBus.connect({ servers: natsUrl(), name: 'nest-transport-test' });
    const streams: string[] = [];
    return {
      bus,
      createStream: async (spec) => {
        streams.push(spec.name);
        await bus.ensureStream(spec);
      },
      dispose: async () => {
        for (const name of streams) await bus.deleteStream(name).catch(() => undefined);
        await bus.close();
      },
    };
  });
});
