import { schedulerConformance } from '../testing/index.js';
import { InProcessScheduler } from './in-process-scheduler.js';

schedulerConformance(
  'InProcessScheduler',
  async () => ({
    open: async () => new InProcessScheduler(),
    // Nothing outlives close(): timers are cleared and jobs are dropped with the instance.
    dispose: async () => undefined,
  }),
  { survivesRestart: false, waitTimeoutMs: 3_000 },
);
