import { checkCoherence } from '@tenet/matching-domain';
import { proposalId, type CheckCoherenceInput, type CheckCoherenceOutput, type CoherenceFindingOutput } from '@tenet/llm';

/**
 * The offline provider's coherence check: the matching domain's lexical judgement (content-word overlap of
 * conditions and actions, one action negated), each proposal against the existing guidelines and the proposals
 * before it — what Tenet answered before evaluations used a model, and still answers without an API key.
 */
export function checkCoherenceOffline(input: CheckCoherenceInput): CheckCoherenceOutput {
  const findings: CoherenceFindingOutput[] = [];
  input.proposals.forEach((proposal, i) => {
    const id = proposalId(i);
    const others = [...input.existing, ...input.proposals.slice(0, i).map((p, j) => ({ ...p, id: proposalId(j) }))];
    const report = checkCoherence({ ...proposal, id }, others);
    for (const f of report.contradictions)
      findings.push({
        proposal_id: id,
        guideline_id: f.guideline_id,
        kind: 'contradiction',
        condition_similarity: f.condition_similarity,
        reason: f.reason,
      });
    for (const f of report.overlaps)
      findings.push({
        proposal_id: id,
        guideline_id: f.guideline_id,
        kind: 'overlap',
        condition_similarity: f.condition_similarity,
        reason: f.reason,
      });
  });
  return { findings };
}
