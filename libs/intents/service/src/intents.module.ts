import { Module } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { TenetMetrics } from '@tenet/observability';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { CatalogReferences } from './catalog-references.js';
import { IntentsHttpController } from './intents.http.controller.js';
import { IntentsRepository } from './intents.repository.js';
import { IntentReports } from './intent-report.js';
import { TurnIntents } from './turn-intents.js';

/**
 * Intents (issue 24, ADR 0031): the `/intents` REST resource and `TurnIntents`, which the session gateway's turn
 * uses to classify each message in its matching call. Needs PlatformModule (the event log); served behind the
 * host's edge (auth, workspaces) like every catalog route.
 */
@Module({
  controllers: [IntentsHttpController],
  providers: [
    { provide: CatalogReferences, useFactory: (store: EventStore) => new CatalogReferences(store), inject: [EVENT_STORE] },
    { provide: IntentsRepository, useFactory: (store: EventStore, catalog: CatalogReferences) => new IntentsRepository(store, catalog), inject: [EVENT_STORE, CatalogReferences] },
    { provide: IntentReports, useFactory: (store: EventStore) => new IntentReports(store), inject: [EVENT_STORE] },
    {
      provide: TurnIntents,
      useFactory: (intents: IntentsRepository, catalog: CatalogReferences, store: EventStore, metrics?: TenetMetrics) => new TurnIntents(intents, catalog, store, metrics),
      inject: [IntentsRepository, CatalogReferences, EVENT_STORE, { token: TenetMetrics, optional: true }],
    },
  ],
  exports: [TurnIntents, IntentsRepository, IntentReports],
})
export class IntentsModule {}
