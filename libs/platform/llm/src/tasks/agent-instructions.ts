/** The agent's own system prompt (its `system_prompt` setting), set apart from Tenet's task instructions. */
export function agentInstructionsSection(systemPrompt: string | undefined): string {
  return systemPrompt ? `\n\n[The agent's instructions, from its operator]\n${systemPrompt}` : '';
}
