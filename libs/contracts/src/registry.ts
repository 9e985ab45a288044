import type { IntegrationEventContract } from './envelope.js';
import { budgetEventContracts } from './metering/budget-events.v1.js';
import { intentEventContracts } from './intents/intent-recognized.v1.js';
import { journeyEventContracts } from './journey/journey-events.v1.js';
import { extractionEventContracts } from './memory/extraction-events.v1.js';
import { memoryEventContracts } from './memory/memory-events.v1.js';
import { meteringEventContracts } from './metering/llm-usage-recorded.v1.js';
import { sessionEventContracts } from './session/session-events.v1.js';
import { sessionDeletionContracts } from './session/session-deletions.v1.js';
import { sessionModeContracts } from './session/session-mode-changed.v1.js';
import { toolEventContracts } from './tools/tools.v1.js';
import { workspaceContract } from './workspaces/workspace-events.v2.js';

/** Every published integration event, in documentation order. docs/events.md is generated from this list. */
export const allContracts: readonly IntegrationEventContract[] = [
  ...sessionEventContracts,
  ...sessionModeContracts,
  ...sessionDeletionContracts,
  ...journeyEventContracts,
  ...meteringEventContracts,
  ...budgetEventContracts,
  ...intentEventContracts,
  ...toolEventContracts,
  ...memoryEventContracts,
  ...extractionEventContracts,
];

/** The same events under major 2 (`tenet.v2.<workspace>.…`, ADR 0018), published beside v1 while v1 is deprecated. */
export const allV2Contracts: readonly IntegrationEventContract[] = allContracts.map(workspaceContract);

export function contractFor(type: string): IntegrationEventContract | undefined {
  return allContracts.find((contract) => contract.type === type);
}
