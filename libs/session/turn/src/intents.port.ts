import type { ComposeReplyRequestV1, MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';

type MatchResult = MatchGuidelinesReplyV1['result'];

/**
 * What the turn asks of the intents service (`@tenet/intents-service`, ADR 0031), by a process-wide token so the
 * gateway does not depend on another feature lib: the host imports `IntentsModule`, which provides it globally.
 * Absent (a host without intents) the turn runs as before.
 */
export const INTENT_TURNS = Symbol.for('tenet.intents.turn-intents');

/** One turn's intents: the calls the turn makes at its marked points (ADR 0031 "Turn changes"). */
export interface IntentTurnPort {
  toolHolders(): { id: string; tools: string[] }[];
  matchFields(toolResults: readonly unknown[]): Pick<MatchGuidelinesRequestV1, 'intents'>;
  gate(result: MatchResult): MatchResult;
  journeyMatches(): MatchResult[];
  composeFields(somethingApplies: boolean): Pick<ComposeReplyRequestV1, 'clarification' | 'fallback_reply'>;
  messageData(): Record<string, unknown> | undefined;
  readyData(result: MatchResult): Record<string, unknown> | undefined;
  record(sessionId: string, correlationId: string): Promise<void>;
}

export interface IntentTurnsPort {
  begin(agentId: string, tail: readonly { source?: string; data?: unknown }[], journeyActive: boolean): Promise<IntentTurnPort | undefined>;
}
