import type { ComposeReplyRequestV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { COMPOSITION_MODES, type CompositionMode, type MatchableGuideline } from '@tenet/matching-domain';
import type { RunnableTool } from '@tenet/tools-client';
import type { TurnDefinitions } from './turn-definitions.js';

/** A guideline as a turn reads it (the agent's definitions snapshot, `AGENT_DEFINITIONS` of the catalog). */
export type SourcedGuideline = MatchableGuideline & {
  track?: boolean;
  metadata?: Record<string, unknown>;
  composition_mode?: CompositionMode;
};

/** A guideline as the match request carries it. */
export const guidelineItem = (g: SourcedGuideline): MatchGuidelinesRequestV1['guidelines'][number] => ({
  id: g.id,
  condition: g.condition,
  ...(g.action ? { action: g.action } : {}),
  priority: g.priority,
  enabled: g.enabled,
  tools: g.tools,
  required_context: g.required_context,
  ...(g.criticality ? { criticality: g.criticality } : {}),
  // Parlant: `metadata.continuous` re-applies whenever the condition holds; `track: false` opts out of
  // applied-guideline tracking, which amounts to the same for matching.
  ...(g.continuous === true || g.metadata?.['continuous'] === true || g.track === false ? { continuous: true } : {}),
  ...(g.tags ? { tags: g.tags } : {}),
  ...(g.journey_id ? { journey_id: g.journey_id } : {}),
  ...(g.journey_step ? { journey_step: g.journey_step } : {}),
});

/** What the turn's extras need to know of each guideline of the agent. */
export interface TurnGuideline {
  id: string;
  tags?: readonly string[];
  composition_mode?: CompositionMode;
  /** Agent tool names and `service:tool` ids. */
  tools?: readonly string[];
}

export const TURN_EXTRAS = Symbol.for('tenet.gateway.turn-extras');

/** The agent's matching and composition resources beyond its guidelines. */
export interface TurnExtras {
  relationships: NonNullable<MatchGuidelinesRequestV1['relationships']>;
  tools: NonNullable<MatchGuidelinesRequestV1['tools']>;
  /** How each of `tools` runs (same names). */
  runnableTools: RunnableTool[];
  settings?: MatchGuidelinesRequestV1['settings'];
  llm?: MatchGuidelinesRequestV1['llm'];
  cannedResponses: NonNullable<ComposeReplyRequestV1['canned_responses']>;
  noMatchMessage?: string;
}

export interface TurnExtrasSource {
  /** `defs` screens each stored definition read for the turn (turn-definitions.ts). */
  forTurn(agentId: string, guidelines: readonly TurnGuideline[], defs: TurnDefinitions): Promise<TurnExtras>;
}

export const compositionModeOf = (mode: string | undefined): CompositionMode =>
  (COMPOSITION_MODES as readonly string[]).includes(mode ?? '') ? (mode as CompositionMode) : 'fluid';

/** Context-variable values usable as template fields (`{{name}}`): strings and numbers as they are. */
export const fieldValues = (values: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values).flatMap(([k, v]) =>
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [[k, String(v)]] : [],
    ),
  );
