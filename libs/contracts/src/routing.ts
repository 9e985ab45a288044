import { toJourneyIntegrationEvent } from './journey/journey-events.v1.js';
import { toUsageIntegrationEvent } from './metering/llm-usage-recorded.v1.js';
import { toSessionIntegrationEvent, type LoggedSessionEvent } from './session/session-events.v1.js';

/** The one mapping from logged events to published integration events; `undefined` keeps an event private. */
export function toIntegrationEvent(event: LoggedSessionEvent): { subject: string; payload: unknown } | undefined {
  return toSessionIntegrationEvent(event) ?? toJourneyIntegrationEvent(event) ?? toUsageIntegrationEvent(event);
}
