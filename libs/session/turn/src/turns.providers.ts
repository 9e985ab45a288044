import type { Provider } from '@nestjs/common';
import { TurnJourneys } from '@tenet/journeys-client';
import { TurnMemory } from '@tenet/memory-client';
import { TurnTools } from '@tenet/tools-client';
import { TurnContext } from './turn-context.js';
import { TurnMeter } from './turn-meter.js';
import { turnInfrastructureProviders } from './turn-options.js';
import { TurnPreparation } from './turn-preparation.js';
import { TurnRunner } from './turn-runner.js';
import { TurnService } from './turn.service.js';

/** The turn's providers, for the module that hosts sessions (the guideline source and the extras are bound there). */
export const TURN_PROVIDERS: Provider[] = [
  ...turnInfrastructureProviders,
  TurnService,
  TurnRunner,
  TurnPreparation,
  TurnTools,
  TurnMeter,
  TurnMemory,
  TurnContext,
  TurnJourneys,
];
