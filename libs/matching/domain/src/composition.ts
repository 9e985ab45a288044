const FIELD = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/** The `{{field}}` placeholders of a canned response, in order of first appearance. */
export function templateFields(template: string): string[] {
  return [...new Set([...template.matchAll(FIELD)].map((m) => m[1] ?? ''))];
}

/** Renders a canned response; `undefined` when a field has no value (such a template cannot be used). */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string | undefined {
  let missing = false;
  const rendered = template.replace(FIELD, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : rendered;
}

/** Parlant's composition modes (`CompositionModeDTO`), least to most restrictive after `fluid`. */
export const COMPOSITION_MODES = ['fluid', 'canned_fluid', 'composited_canned', 'strict_canned'] as const;
export type CompositionMode = (typeof COMPOSITION_MODES)[number];

/** Parlant's reply when strict_canned finds no template that fits (its `DEFAULT_NO_MATCH_CANREP`). */
export const DEFAULT_NO_MATCH_MESSAGE = 'Not sure I understand. Could you please say that another way?';

const RESTRICTIVENESS: Readonly<Record<CompositionMode, number>> = { fluid: 0, canned_fluid: 1, composited_canned: 2, strict_canned: 3 };

/**
 * The mode a reply is composed in, given the agent's mode and the composition modes the matched guidelines
 * set (Parlant's `_resolve_composition_mode`): a strict_canned agent is always strict; otherwise the most
 * restrictive canned mode any matched guideline asks for wins, even over the agent's own canned mode; a
 * guideline's `fluid` asks for nothing; with no guideline asking, the agent's mode applies.
 */
export function effectiveCompositionMode(
  agentMode: CompositionMode,
  matchedModes: readonly (CompositionMode | undefined)[],
): CompositionMode {
  if (agentMode === 'strict_canned') return 'strict_canned';
  let chosen: CompositionMode | undefined;
  for (const mode of matchedModes) {
    if (mode === undefined || mode === 'fluid') continue;
    if (chosen === undefined || RESTRICTIVENESS[mode] > RESTRICTIVENESS[chosen]) chosen = mode;
  }
  return chosen ?? agentMode;
}
