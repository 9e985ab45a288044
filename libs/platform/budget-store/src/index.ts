export type { BudgetStore, ReserveRequest, ReserveResult, ScopeRef, Settlement } from './budget-store.port.js';
export { InProcessBudgetStore } from './in-process/in-process-budget-store.js';
export { RedisBudgetStore, type RedisBudgetStoreOptions } from './redis/redis-budget-store.js';
export { refill, type RateLimiter } from './rate-limiter.port.js';
export { InProcessRateLimiter } from './in-process/in-process-rate-limiter.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis/redis-rate-limiter.js';
export { admit, type Admission, type BudgetCounter } from './admission.js';
