import { Global, Module } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { TenetMetrics } from '@tenet/observability';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { CatalogReferences } from './catalog-references.js';
import { IntentsHttpController } from './intents.http.controller.js';
import { IntentsRepository } from './intents.repository.js';
import { IntentReports } from './intent-report.js';
import { TurnIntents } from './turn-intents.js';

/** The tokens the session gateway asks for (its `intents.port.ts`): process-wide symbols, no import between the libs. */
export const INTENT_TURNS = Symbol.for('tenet.intents.turn-intents');
export const INTENT_REPORTS = Symbol.for('tenet.intents.reports');

/**
 * Intents (ADR 0031): the `/intents` REST resource, `TurnIntents` (the session gateway's turn classifies
 * each message in its matching call through it) and `IntentReports` (the usage page). Imported by the hosts that
 * serve the gateway API; global, so the gateway's turn and usage page find `INTENT_TURNS` / `INTENT_REPORTS`.
 * Needs PlatformModule (the event log); served behind the host's edge (auth, workspaces) like every catalog route.
 */
@Global()
@Module({
  controllers: [IntentsHttpController],
  providers: [
    { provide: CatalogReferences, useFactory: (store: EventStore) => new CatalogReferences(store), inject: [EVENT_STORE] },
    {
      provide: IntentsRepository,
      useFactory: (store: EventStore, catalog: CatalogReferences) => new IntentsRepository(store, catalog),
      inject: [EVENT_STORE, CatalogReferences],
    },
    { provide: IntentReports, useFactory: (store: EventStore) => new IntentReports(store), inject: [EVENT_STORE] },
    { provide: INTENT_TURNS, useExisting: TurnIntents },
    { provide: INTENT_REPORTS, useExisting: IntentReports },
    {
      provide: TurnIntents,
      useFactory: (intents: IntentsRepository, catalog: CatalogReferences, store: EventStore, metrics?: TenetMetrics) =>
        new TurnIntents(intents, catalog, store, metrics),
      inject: [IntentsRepository, CatalogReferences, EVENT_STORE, { token: TenetMetrics, optional: true }],
    },
  ],
  exports: [TurnIntents, IntentsRepository, IntentReports, INTENT_TURNS, INTENT_REPORTS],
})
export class IntentsModule {}
