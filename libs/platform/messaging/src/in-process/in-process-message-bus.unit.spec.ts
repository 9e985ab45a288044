import { messageBusConformance } from '../testing/index.js';
import { InProcessMessageBus } from './in-process-message-bus.js';

messageBusConformance('in-process', async () => {
  const bus = new InProcessMessageBus();
  return { bus, createStream: async (spec) => bus.ensureStream(spec), dispose: () => bus.close() };
});
