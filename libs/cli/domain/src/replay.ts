import type { TurnObservation } from './turn.js';

/** A recorded turn of a live session and the same customer message re-run against the changed definitions. */
export interface ReplayedTurn {
  session: string;
  turn: number;
  recorded: TurnObservation;
  replayed: TurnObservation;
}

/** How a turn would now go differently: guidelines newly matched / no longer matched, and the two replies. */
export interface TurnDifference {
  session: string;
  turn: number;
  customer: string;
  added: string[];
  removed: string[];
  recordedReply: string;
  replayedReply: string;
}

/**
 * The turns whose matched guidelines changed, and only those: a reply that differs with the same guidelines is
 * sampling (a real model words the same answer differently), not a behaviour change of the definitions.
 */
export function behaviourDiff(turns: readonly ReplayedTurn[]): TurnDifference[] {
  return turns.flatMap((t) => {
    const before = new Set(t.recorded.matched.map((m) => m.id));
    const after = new Set(t.replayed.matched.map((m) => m.id));
    const added = [...after].filter((id) => !before.has(id)).sort();
    const removed = [...before].filter((id) => !after.has(id)).sort();
    if (added.length === 0 && removed.length === 0) return [];
    return [
      {
        session: t.session,
        turn: t.turn,
        customer: t.recorded.customer,
        added,
        removed,
        recordedReply: t.recorded.reply,
        replayedReply: t.replayed.reply,
      },
    ];
  });
}

export function renderBehaviourDiff(differences: readonly TurnDifference[], replayedTurns: number): string {
  const lines = differences.flatMap((d) => [
    `session ${d.session} turn ${d.turn}: "${d.customer}"`,
    ...d.added.map((id) => `  + matched ${id}`),
    ...d.removed.map((id) => `  - matched ${id}`),
    `  reply was: ${d.recordedReply}`,
    `  reply now: ${d.replayedReply}`,
  ]);
  lines.push(`${differences.length} of ${replayedTurns} replayed turns would now match different guidelines.`);
  return lines.join('\n');
}
