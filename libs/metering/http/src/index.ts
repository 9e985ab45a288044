export { MeteringHttpModule } from './metering-http.module.js';
export { AgentBudgets, BUDGET_RESET_QUEUE, budgetRefusalOf, turnTokenEstimate } from './budgets/agent-budgets.js';
export { BudgetHttpController } from './budgets/budget.http.controller.js';
export { UsageHttpController } from './usage/usage.http.controller.js';
export { UsagePageHttpController } from './usage/usage-page.http.controller.js';
export { UsageStreamSink, priceTableFrom } from './usage/usage-stream.sink.js';
