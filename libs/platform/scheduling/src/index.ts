export type {
  BackoffPolicy,
  JobContext,
  JobFailure,
  JobHandler,
  ScheduleRequest,
  ScheduleResult,
  Scheduler,
  WorkerOptions,
} from './scheduler.port.js';
export {
  InvalidScheduleRequestError,
  NonRetryableJobError,
  SchedulerClosedError,
  SchedulerStorageError,
  SchedulingError,
} from './errors.js';
export { closeEachWithinGrace, closeWithinGrace, notClosedCleanly, type BullMqClosable } from './bullmq/bounded-close.js';
export { loadBullMq } from './bullmq/load-bullmq.js';
export { REPEAT_REPORT_MS, reportOncePer } from './bullmq/repeat-limited.js';
export { MAX_RECONNECT_DELAY_MS, reconnectDelayMs, withQuickReconnect } from './bullmq/quick-reconnect.js';
export { BullMqScheduler, redisOptionsFromUrl, type BullMqSchedulerOptions } from './bullmq/bullmq-scheduler.js';
export { InProcessScheduler, type InProcessSchedulerOptions } from './in-process/in-process-scheduler.js';
export { BackgroundArming, armBackoffMs, type ArmingLog, type BackgroundArmingOptions } from './background-arming.js';
