import { hostname } from 'node:os';
import { Logger, type Provider } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import type { MessageBus } from '@tenet/messaging';
import type { TenetConfig } from '@tenet/config';
import { EVENT_STORE, MESSAGE_BUS, TENET_CONFIG } from '@tenet/platform-runtime';
import { SessionEventsService, SessionTimers } from '@tenet/session-data-access';
import { newId } from '@tenet/edge';
import type { TurnTiming } from './turn-deadline.js';
import { DefinitionScreen } from './turn-definitions.js';
import { TurnLeases } from './turn-lease.js';
import { TurnRecovery } from './turn-recovery.js';

export const TURN_OPTIONS = Symbol.for('tenet.gateway.turn-options');

/** Everything a turn reads from the environment, read once where the module is built (not in constructors). */
export interface TurnOptions {
  /** The turn's deadline and each matcher attempt's timeout (`TENET_TURN_DEADLINE_MS`, `TENET_MATCHER_ATTEMPT_TIMEOUT_MS`). */
  timing: TurnTiming;
  /** A gateway whose heartbeat is older than this is dead (`TENET_TURN_LEASE_TTL_MS`). */
  leaseTtlMs: number;
  /** This process as a lease owner: unique per process. */
  owner: string;
}

/** The turn's settings from the process's validated configuration (rules and defaults: `@tenet/config`). */
export function turnOptionsOf(config: TenetConfig): TurnOptions {
  return {
    timing: { deadlineMs: config.get('TENET_TURN_DEADLINE_MS'), attemptTimeoutMs: config.get('TENET_MATCHER_ATTEMPT_TIMEOUT_MS') },
    leaseTtlMs: config.get('TENET_TURN_LEASE_TTL_MS'),
    owner: `${hostname()}-${process.pid}-${newId(6)}`,
  };
}

/** The turn's collaborators that are not plain classes: built here from the options, injected where used. */
export const turnInfrastructureProviders: Provider[] = [
  { provide: TURN_OPTIONS, useFactory: (config: TenetConfig): TurnOptions => turnOptionsOf(config), inject: [TENET_CONFIG] },
  {
    provide: TurnLeases,
    useFactory: (store: EventStore, bus: MessageBus, options: TurnOptions) =>
      new TurnLeases(store, bus, options.owner, { ttlMs: options.leaseTtlMs }),
    inject: [EVENT_STORE, MESSAGE_BUS, TURN_OPTIONS],
  },
  {
    provide: TurnRecovery,
    // A recovered turn's session leaves AwaitingTool before its `error` status: no session stays in it.
    useFactory: (store: EventStore, leases: TurnLeases, events: SessionEventsService, timers: SessionTimers) =>
      new TurnRecovery(store, leases, async (id, value, data, correlationId) => {
        await timers.completeTool(id);
        return events.append(id, { kind: 'status', source: 'ai_agent', status: value, data }, correlationId);
      }),
    inject: [EVENT_STORE, TurnLeases, SessionEventsService, SessionTimers],
  },
  { provide: DefinitionScreen, useFactory: () => new DefinitionScreen(new Logger('TurnDefinitions')) },
];
