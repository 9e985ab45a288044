import { describeWithService, natsUrl, probeNats } from '@tenet/testing';
import { messageBusConformance } from '../testing/index.js';
import { NatsMessageBus } from './nats-message-bus.js';

describeWithService(await probeNats(), 'NatsMessageBus on a real NATS server', () => {
  messageBusConformance('JetStream + core NATS', async () => {
    const bus = await NatsMessageBus.connect({ servers: natsUrl(), name: 'conformance' });
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
