/** The agent's own system prompt (its `system_prompt` setting), set apart from Tenet's task instructions. */
/** The agent's personality (docs/data-model.md#soul): soul document, tone, restrictions and forbidden topics. */
export interface AgentSoul {
  document?: string;
  tone?: string;
  restrictions?: readonly string[];
  forbidden_topics?: readonly string[];
}

/**
 * The agent's instructions as every call sends them: its system prompt, then its soul (personality document, tone,
 * restrictions, forbidden topics). Undefined when the agent has neither.
 */
export function agentInstructions(systemPrompt: string | undefined, soul: AgentSoul | undefined): string | undefined {
  const parts: string[] = [];
  if (systemPrompt) parts.push(systemPrompt);
  if (soul?.document) parts.push(`Personality (the agent's soul document):\n${soul.document}`);
  if (soul?.tone) parts.push(`Tone of voice: ${soul.tone}`);
  if (soul?.restrictions?.length) parts.push(`Restrictions — always hold to these:\n${soul.restrictions.map((r) => `- ${r}`).join('\n')}`);
  if (soul?.forbidden_topics?.length)
    parts.push(
      `Forbidden topics — never discuss these; politely decline and steer back:\n${soul.forbidden_topics.map((t) => `- ${t}`).join('\n')}`,
    );
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export function agentInstructionsSection(systemPrompt: string | undefined): string {
  return systemPrompt ? `\n\n[The agent's instructions, from its operator]\n${systemPrompt}` : '';
}
