import { budgetStoreConformance } from '../testing/index.js';
import { InProcessBudgetStore } from './in-process-budget-store.js';

// One process, one store: "two stores" share it, as the gateway and matcher modules of the all-in-one do.
budgetStoreConformance(
  'InProcessBudgetStore',
  async () => {
    const shared = new InProcessBudgetStore();
    return { open: async () => shared, dispose: async () => undefined };
  },
  { sharedAcrossOpens: true },
);
