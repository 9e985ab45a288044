export {
  defaultPriceTable,
  estimateCostUsd,
  priceOf,
  priceTableFrom,
  priceTableWith,
  summarizeUsage,
  type ModelPrice,
  type PriceTable,
  type UsageRecord,
  type UsageSummary,
} from './pricing.js';
export * from './budgets.js';
export { EVALUATIONS_USAGE_ID } from './evaluations-usage.js';
