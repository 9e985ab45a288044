import type { JourneyDefinition } from './journey-definition.js';

/** Text that is safe inside a Mermaid label: entity codes for the characters Mermaid's parser treats as syntax. */
const label = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[#"<>;:{}]/g, (c) => `#${c.charCodeAt(0)};`);

/**
 * The journey as a Mermaid `stateDiagram-v2` (what Parlant's `GET /journeys/{id}/mermaid` returns): `[*]` into
 * the initial step, one state per step labelled with its name (aliases S0…Sn keep ids free of Mermaid syntax),
 * each transition labelled with its condition and priority, final steps into `[*]`, and a class per step
 * kind so renderers can colour tool, fork and final steps. A journey without steps is one state: its title.
 */
export function journeyMermaid(journey: JourneyDefinition): string {
  const lines = ['stateDiagram-v2'];
  if (journey.steps.length === 0) {
    lines.push(`    state "${label(journey.title)}" as J`, '    [*] --> J', '    J --> [*]');
    return lines.join('\n');
  }
  const alias = new Map(journey.steps.map((s, i) => [s.id, `S${i}`]));
  for (const step of journey.steps) lines.push(`    state "${label(step.name)}" as ${alias.get(step.id) ?? ''}`);
  if (journey.initial_step !== undefined && alias.has(journey.initial_step))
    lines.push(`    [*] --> ${alias.get(journey.initial_step) ?? ''}`);
  for (const t of journey.transitions) {
    const from = alias.get(t.from);
    const to = alias.get(t.to);
    if (from === undefined || to === undefined) continue;
    const text = [t.condition === undefined ? '' : label(t.condition), t.priority !== 0 ? `(priority ${t.priority})` : '']
      .filter(Boolean)
      .join(' ');
    lines.push(text ? `    ${from} --> ${to}: ${text}` : `    ${from} --> ${to}`);
  }
  for (const step of journey.steps) if (step.kind === 'final') lines.push(`    ${alias.get(step.id) ?? ''} --> [*]`);
  const kinds = {
    chat: 'fill:#006e53,color:#ffffff',
    tool: 'fill:#ffeeaa,color:#dd6600',
    fork: 'fill:#dde6ff,color:#1f3b8a',
    final: 'fill:#eeeeee,color:#333333',
  } as const;
  for (const [kind, style] of Object.entries(kinds)) {
    const members = journey.steps.filter((s) => s.kind === kind).map((s) => alias.get(s.id) ?? '');
    if (members.length > 0) lines.push(`    classDef ${kind} ${style}`, `    class ${members.join(',')} ${kind}`);
  }
  return lines.join('\n');
}
