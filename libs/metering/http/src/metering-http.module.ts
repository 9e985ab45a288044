import { Module } from '@nestjs/common';
import { CatalogDataModule } from '@tenet/catalog-data-access';
import { EdgeAccessModule, WorkspacesModule } from '@tenet/edge';
import type { EventStore } from '@tenet/event-store';
import { defaultPriceTable } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AgentBudgets } from './budgets/agent-budgets.js';
import { BudgetHttpController } from './budgets/budget.http.controller.js';
import { UsagePageHttpController } from './usage/usage-page.http.controller.js';
import { priceTableFrom, UsageStreamSink } from './usage/usage-stream.sink.js';
import { UsageHttpController } from './usage/usage.http.controller.js';

/**
 * Metering at the HTTP edge and in the turn: agents' and workspaces' budgets (held and settled around every LLM
 * call), the priced usage events of every LLM call, and the usage routes and page (answered by the metering
 * service over the bus).
 */
@Module({
  imports: [EdgeAccessModule, WorkspacesModule, CatalogDataModule],
  controllers: [UsageHttpController, UsagePageHttpController, BudgetHttpController],
  providers: [
    AgentBudgets,
    // Every LLM call of a turn becomes a priced usage event in the log, published to metering by the relay.
    {
      provide: UsageStreamSink,
      useFactory: (store: EventStore) => new UsageStreamSink(store, priceTableFrom(process.env, defaultPriceTable)),
      inject: [EVENT_STORE],
    },
  ],
  exports: [AgentBudgets, UsageStreamSink],
})
export class MeteringHttpModule {}
