export { SessionGatewayModule } from './gateway.module.js';
export { JourneyTimers, type JourneyTimerJob } from './sessions/journey-timers.js';
