export { BudgetExceededError, BudgetGate, BudgetStoreMissingError, estimateCall, type BudgetGateOptions } from './budget-gate.js';
