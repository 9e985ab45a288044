export { schedulerConformance, type SchedulerCapabilities, type SchedulerHarness } from './scheduler.conformance.js';
