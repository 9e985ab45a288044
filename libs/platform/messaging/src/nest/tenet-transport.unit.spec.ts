import { InProcessMessageBus } from '../in-process/in-process-message-bus.js';
import { tenetTransportConformance } from '../testing/index.js';

tenetTransportConformance('the in-process bus', async () => {
  const bus = new InProcessMessageBus();
  return { bus, createStream: async (spec) => bus.ensureStream(spec), dispose: () => bus.close() };
});
