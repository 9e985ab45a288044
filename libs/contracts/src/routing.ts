import { toBudgetIntegrationEvent } from './metering/budget-events.v1.js';
import { toJourneyIntegrationEvent } from './journey/journey-events.v1.js';
import { toExtractionIntegrationEvent } from './memory/extraction-events.v1.js';
import { toMemoryIntegrationEvent } from './memory/memory-events.v1.js';
import { toIntentIntegrationEvent } from './intents/intent-recognized.v1.js';
import { toUsageIntegrationEvent } from './metering/llm-usage-recorded.v1.js';
import { toSessionIntegrationEvent, type LoggedSessionEvent } from './session/session-events.v1.js';
import { toSessionDeletionEvent } from './session/session-deletions.v1.js';
import { toSessionModeChangedEvent } from './session/session-mode-changed.v1.js';
import { toToolIntegrationEvent } from './tools/tools.v1.js';

/** The one mapping from logged events to published integration events; `undefined` keeps an event private. */
export function toIntegrationEvent(event: LoggedSessionEvent): { subject: string; payload: unknown } | undefined {
  return (
    toSessionIntegrationEvent(event) ??
    toSessionModeChangedEvent(event) ??
    toSessionDeletionEvent(event) ??
    toJourneyIntegrationEvent(event) ??
    toUsageIntegrationEvent(event) ??
    toToolIntegrationEvent(event) ??
    toMemoryIntegrationEvent(event) ??
    toExtractionIntegrationEvent(event) ??
    toBudgetIntegrationEvent(event) ??
    toIntentIntegrationEvent(event)
  );
}
