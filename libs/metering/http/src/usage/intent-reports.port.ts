/**
 * The usage page's intents section (counts and clarification rate per agent), provided by the intents service
 * (`@tenet/intents-service`, ADR 0031) under a process-wide token, so metering does not import another feature lib.
 * Absent (a host without intents) the page has no intents section.
 */
export const INTENT_REPORTS = Symbol.for('tenet.intents.reports');

export interface IntentReportsPort {
  forAgent(agentId: string, buckets: readonly { from: string; to: string }[]): Promise<{ agent_id: string } & Record<string, unknown>>;
  section(
    reports: readonly ({ agent_id: string; name: string } & Record<string, unknown>)[],
    buckets: readonly { from: string; to: string }[],
    label: (bucket: { from: string; to: string }) => string,
  ): string;
}
