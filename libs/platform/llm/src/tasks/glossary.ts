/** A term of the agent's domain language: what it means, and the other words customers use for it. */
export interface GlossaryTerm {
  name: string;
  description: string;
  synonyms: string[];
}

/** The glossary as a prompt section (empty when there are no terms), so a model reads a synonym as the term. */
export function glossarySection(terms: readonly GlossaryTerm[] | undefined): string {
  if (!terms?.length) return '';
  const lines = terms.map((t) => `- ${t.name}${t.synonyms.length ? ` (also: ${t.synonyms.join(', ')})` : ''}: ${t.description}`);
  return `\n\nGlossary (a synonym means the same as its term):\n${lines.join('\n')}`;
}
