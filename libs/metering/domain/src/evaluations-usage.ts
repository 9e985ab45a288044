/**
 * Evaluations belong to no agent (Parlant's guideline payloads carry none), so their LLM calls are metered under
 * this reserved id: `GET /agents/_evaluations/usage`, the `agent_id="_evaluations"` metrics, the usage page.
 * No agent may take it (AgentCreationDto refuses it).
 */
export const EVALUATIONS_USAGE_ID = '_evaluations';
