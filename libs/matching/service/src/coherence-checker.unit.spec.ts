import { CHECK_COHERENCE, OfflineProvider, type CheckCoherenceInput } from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { CoherenceChecker } from './coherence-checker.js';
import { ProviderRegistry } from './provider-registry.js';

const existing = [
  { id: 'g-refund', condition: 'The customer asks for a refund of their order', action: 'Offer a full refund' },
  { id: 'g-hours', condition: 'The customer asks when the shop opens', action: 'Give the opening hours' },
];

describe('CoherenceChecker', () => {
  it('asks the model once for every proposal, with the proposals numbered and the existing guidelines listed', async () => {
    const provider = new ScriptedProvider({ usage: { inputTokens: 120, outputTokens: 30 } }).answer(CHECK_COHERENCE, { findings: [] });
    const reply = await new CoherenceChecker(new ProviderRegistry(provider)).check({
      evaluation_id: 'e1',
      proposals: [{ condition: 'A' }, { condition: 'B', action: 'b' }],
      existing,
    });
    const [request] = provider.requestsFor<CheckCoherenceInput>(CHECK_COHERENCE);
    expect(provider.requests).toHaveLength(1);
    expect(request!.task.input).toEqual({
      proposals: [
        { id: 'proposal:0', condition: 'A' },
        { id: 'proposal:1', condition: 'B', action: 'b' },
      ],
      existing,
    });
    expect(request!.messages?.[0]?.content).toContain('g-refund');
    expect(reply.results).toEqual([
      { contradictions: [], overlaps: [] },
      { contradictions: [], overlaps: [] },
    ]);
    expect(reply.calls).toEqual([
      expect.objectContaining({ purpose: 'check_coherence', provider: 'scripted', input_tokens: 120, output_tokens: 30 }),
    ]);
  });

  it('keeps findings about listed guidelines and earlier proposals only, once per pair, a contradiction over an overlap', async () => {
    const provider = new ScriptedProvider().answer(CHECK_COHERENCE, {
      findings: [
        { proposal_id: 'proposal:1', guideline_id: 'g-hours', kind: 'overlap', condition_similarity: 0.456, reason: 'same situation' },
        {
          proposal_id: 'proposal:1',
          guideline_id: 'g-hours',
          kind: 'contradiction',
          condition_similarity: 0.9,
          reason: 'opposite answers',
        },
        { proposal_id: 'proposal:1', guideline_id: 'proposal:0', kind: 'overlap', condition_similarity: 0.5, reason: 'earlier proposal' },
        { proposal_id: 'proposal:0', guideline_id: 'proposal:1', kind: 'overlap', condition_similarity: 0.5, reason: 'a later proposal' },
        { proposal_id: 'proposal:0', guideline_id: 'proposal:0', kind: 'overlap', condition_similarity: 1, reason: 'itself' },
        { proposal_id: 'proposal:0', guideline_id: 'g-invented', kind: 'contradiction', condition_similarity: 1, reason: 'not listed' },
        { proposal_id: 'proposal:7', guideline_id: 'g-refund', kind: 'contradiction', condition_similarity: 1, reason: 'no such proposal' },
      ],
    });
    const reply = await new CoherenceChecker(new ProviderRegistry(provider)).check({
      evaluation_id: 'e1',
      proposals: [{ condition: 'A' }, { condition: 'B' }],
      existing,
    });
    expect(reply.results).toEqual([
      { contradictions: [], overlaps: [] },
      {
        contradictions: [{ guideline_id: 'g-hours', condition_similarity: 0.9, reason: 'opposite answers' }],
        overlaps: [{ guideline_id: 'proposal:0', condition_similarity: 0.5, reason: 'earlier proposal' }],
      },
    ]);
  });

  it('answers lexically with the offline provider: a negated action on the same situation contradicts', async () => {
    const reply = await new CoherenceChecker(new ProviderRegistry(new OfflineProvider())).check({
      evaluation_id: 'e1',
      proposals: [{ condition: 'The customer wants a refund for an order', action: 'Never offer a refund' }],
      existing,
    });
    expect(reply.results[0]!.contradictions.map((f) => f.guideline_id)).toEqual(['g-refund']);
    expect(reply.calls).toEqual([expect.objectContaining({ provider: 'offline' })]);
  });
});
