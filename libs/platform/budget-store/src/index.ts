export type { BudgetStore, ReserveRequest, ReserveResult, ScopeRef, Settlement } from './budget-store.port.js';
export { InProcessBudgetStore } from './in-process/in-process-budget-store.js';
export { RedisBudgetStore, type RedisBudgetStoreOptions } from './redis/redis-budget-store.js';
