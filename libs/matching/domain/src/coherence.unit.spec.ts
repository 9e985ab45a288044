import { checkCoherence } from './coherence.js';

describe('checkCoherence', () => {
  const refund = { id: 'g_refund', condition: 'The customer asks for a refund of their order', action: 'Offer a full refund' };

  it('finds a contradiction: similar conditions, and one action rules out what the other does', () => {
    const report = checkCoherence({ id: 'new', condition: 'The customer wants a refund for an order', action: 'Never offer a refund' }, [
      refund,
    ]);
    expect(report.contradictions).toEqual([
      expect.objectContaining({ guideline_id: 'g_refund', reason: expect.stringContaining('refund') }),
    ]);
    expect(report.overlaps).toEqual([]);
  });

  it('finds an overlap: the same situation, actions that agree', () => {
    const report = checkCoherence({ id: 'new', condition: 'Customer asks for refund of order', action: 'Explain the refund policy' }, [
      refund,
    ]);
    expect(report.contradictions).toEqual([]);
    expect(report.overlaps.map((f) => f.guideline_id)).toEqual(['g_refund']);
    expect(report.overlaps[0]!.condition_similarity).toBeGreaterThanOrEqual(0.5);
  });

  it('finds nothing for an unrelated guideline, and skips the guideline itself', () => {
    expect(
      checkCoherence({ id: 'new', condition: 'The customer asks about the weather', action: 'Say you cannot forecast' }, [refund]),
    ).toEqual({ contradictions: [], overlaps: [] });
    expect(checkCoherence(refund, [refund])).toEqual({ contradictions: [], overlaps: [] });
  });

  it('is deterministic', () => {
    const candidate = { id: 'n', condition: 'customer wants a refund', action: 'do not offer a refund' };
    expect(checkCoherence(candidate, [refund])).toEqual(checkCoherence(candidate, [refund]));
  });
});

describe('checkCoherence: actions about different things do not contradict', () => {
  it('"explain the refund policy" does not contradict "never offer a refund"', () => {
    const report = checkCoherence({ id: 'n', condition: 'Customer asks for refund of order', action: 'Explain the refund policy' }, [
      { id: 'o', condition: 'The customer wants a refund for an order', action: 'Never offer a refund' },
    ]);
    expect(report.contradictions).toEqual([]);
    expect(report.overlaps.map((f) => f.guideline_id)).toEqual(['o']);
  });
});
