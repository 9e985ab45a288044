export { budgetStoreConformance, type BudgetStoreHarness } from './budget-store.conformance.js';
