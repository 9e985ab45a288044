import type { ComposeReplyReplyV1, ComposeReplyRequestV1, MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import type { ToolOutcome } from '@tenet/llm';
import { appliedAfterReply, askForMissingContext, type CompositionMode, type GuidelineMatch } from '@tenet/matching-domain';
import type { JourneyProgress } from '@tenet/journeys-client';
import type { RememberedForReply } from '@tenet/memory-client';
import { toolFieldValues, type TurnToolLog } from '@tenet/tools-client';
import { SESSION_APPLIED_FIELD } from './turn-history.js';
import type { PricedCall } from './turn-meter.js';
import { fieldValues } from './turn-ports.js';
import type { PreparedTurn } from './turn-preparation.js';

/** What the turn has learned by the time it composes (the runner's record of the effects' results). */
export interface TurnFindings {
  matched: MatchGuidelinesReplyV1;
  tools: TurnToolLog;
  calls: PricedCall[];
  remembered?: RememberedForReply | undefined;
  journey?: JourneyProgress | undefined;
  /** The first match reply of the turn (intents are classified in it). */
  firstMatch?: MatchGuidelinesReplyV1['result'] | undefined;
  /** Required context variables still without a value (docs/data-model.md#context-variables). */
  missingContext: readonly { name: string; required: boolean }[];
}

/** The match request: the agent's guidelines (and its journeys' conditions) scored against the message. */
export function matchRequest(turn: PreparedTurn, toolResults: readonly ToolOutcome[]): MatchGuidelinesRequestV1 {
  const { extras, journeys, budget } = turn;
  return {
    session_id: turn.sessionId,
    agent: turn.agentRef,
    message: turn.message,
    history: turn.history,
    guidelines: turn.guidelines,
    context: turn.contextValues,
    previously_applied: turn.tail.previouslyApplied,
    terms: turn.terms,
    ...(extras.relationships.length > 0 ? { relationships: extras.relationships } : {}),
    ...(extras.tools.length > 0 ? { tools: extras.tools } : {}),
    ...(extras.settings ? { settings: extras.settings } : {}),
    ...(extras.llm ? { llm: extras.llm } : {}),
    ...(toolResults.length > 0 ? { tool_results: [...toolResults] } : {}),
    ...(journeys?.activeJourney ? { active_journey: journeys.activeJourney } : {}),
    ...(budget ? { budget: { scopes: budget } } : {}),
    ...turn.intents?.matchFields(toolResults),
  };
}

/** The compose request: the matched actions (none while disambiguating) and everything the reply may use. */
export function composeRequest(
  turn: PreparedTurn,
  found: TurnFindings,
  compositionMode: CompositionMode,
  capabilities: NonNullable<ComposeReplyRequestV1['capabilities']>,
): ComposeReplyRequestV1 {
  const { extras, budget, terms } = turn;
  const { matched, remembered, journey } = found;
  const outcomes = found.tools.outcomes;
  const disambiguation = matched.result.disambiguation;
  const byId = new Map(turn.agentGuidelines.map((g) => [g.id, g]));
  const actions = matched.result.top_matches.flatMap((m) => (m.action ? [{ guideline_id: m.guideline_id, action: m.action }] : []));
  return {
    session_id: turn.sessionId,
    agent: turn.agentRef,
    message: turn.message,
    history: turn.history,
    matched: disambiguation
      ? []
      : [...actions, ...(journey?.instruction ? [journey.instruction] : []), ...askForMissingContext(found.missingContext)],
    composition_mode: compositionMode,
    ...(extras.cannedResponses.length > 0 ? { canned_responses: extras.cannedResponses } : {}),
    field_values: { ...fieldValues(turn.contextValues), ...remembered?.fieldValues, ...toolFieldValues(outcomes) },
    ...remembered?.compose,
    ...(outcomes.length > 0 ? { tool_results: outcomes } : {}),
    ...(terms.length > 0 ? { terms } : {}),
    ...(disambiguation
      ? {
          disambiguation: {
            candidates: disambiguation.candidates.map((id) => ({ guideline_id: id, condition: byId.get(id)?.condition ?? id })),
          },
        }
      : {}),
    ...(extras.noMatchMessage ? { no_match_message: extras.noMatchMessage } : {}),
    ...(extras.llm ? { llm: extras.llm } : {}),
    ...(capabilities.length > 0 ? { capabilities } : {}),
    ...(budget ? { budget: { scopes: budget } } : {}),
    // Intents: a clarifying question, or the fallback reply when nothing else applies.
    ...turn.intents?.composeFields(matched.result.top_matches.length > 0 || journey?.instruction !== undefined || outcomes.length > 0),
  };
}

/** The `ready` status of a replied turn: what matched and why, what it cost, what ran. */
export function readyData(
  turn: PreparedTurn,
  found: TurnFindings,
  reply: ComposeReplyReplyV1,
  compositionMode: CompositionMode,
): Record<string, unknown> {
  const { matched, tools, journey } = found;
  const top = matched.result.top_matches;
  const applied = appliedAfterReply(top as GuidelineMatch[], reply.cited_guideline_ids);
  return {
    matched_guidelines: top.map((m) => ({
      guideline_id: m.guideline_id,
      score: m.relevance_score,
      priority: m.priority,
      criticality: m.criticality,
      reasoning: m.reasoning,
    })),
    guideline_match_result: matched.result,
    cited_guideline_ids: reply.cited_guideline_ids,
    // Parlant's response analysis: the matched guidelines this reply applied; non-continuous ones are not re-applied.
    applied_guideline_ids: applied,
    // Tenet extension: the session's applied set so far, so the next turn need not scan every earlier `ready`.
    [SESSION_APPLIED_FIELD]: [...new Set([...turn.tail.previouslyApplied, ...applied])],
    ...(reply.canned_response_id ? { canned_response_id: reply.canned_response_id } : {}),
    ...(reply.capability_ids ? { capability_ids: reply.capability_ids } : {}),
    usage: found.calls.map(({ purpose, provider, model, input_tokens, output_tokens, cost_estimate_usd, fallback_from }) => ({
      purpose,
      provider,
      model,
      input_tokens,
      output_tokens,
      cost_estimate_usd,
      ...(fallback_from ? { fallback_from } : {}),
    })),
    provenance: { ...(matched.provenance ?? {}), composition_mode: compositionMode },
    turn_time_ms: Math.round(performance.now() - turn.started),
    ...(tools.calls.length > 0 ? { tool_calls: tools.calls } : {}),
    ...(tools.issues.length > 0 ? { tool_issues: tools.issues } : {}),
    ...(journey ? journeyReadyFields(journey) : {}),
    served_by: { match: matched.served_by, compose: reply.served_by },
    ...turn.memory?.readyData(),
    ...turn.intents?.readyData(found.firstMatch ?? matched.result),
    ...(found.missingContext.length > 0 ? { missing_context: found.missingContext.map((v) => v.name) } : {}),
    // Tenet extension: stored definitions this turn left out because they break the turn's contracts.
    ...(turn.defs.skipped.length > 0 ? { skipped_definitions: turn.defs.skipped } : {}),
  };
}

/** Parlant's journey fields on `ready` (`matched_journeys`, `journey_states`) and Tenet's explanation of the step. */
function journeyReadyFields(journey: JourneyProgress): Record<string, unknown> {
  return {
    matched_journeys: journey.matched,
    journey_states: journey.states,
    ...(journey.events.length > 0 ? { journey_events: journey.events } : {}),
    ...(journey.active ? { active_journey: journey.active } : {}),
    ...(Object.keys(journey.evaluated).length > 0 ? { journey_conditions: journey.evaluated } : {}),
    ...(journey.tool_step ? { journey_tool_step: journey.tool_step } : {}),
    ...(journey.rejected.length > 0 ? { journey_rejections: journey.rejected } : {}),
  };
}
