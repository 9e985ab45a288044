import { returns } from './returns-journey.fixture.js';
import { evaluateJourneyConditions, isJourneyConditionId, journeyConditions } from './journey-conditions.js';
import { foldJourney, type JourneyEvent } from './journey-state.js';

describe('journey conditions', () => {
  const journey = returns();
  const activated: JourneyEvent = {
    type: 'journey_activated',
    data: { journeyId: journey.id, sessionId: 's1', step: 'ask_order', resumed: false, at: 1 },
  };

  it('asks nothing of a journey not started', () => {
    expect(journeyConditions(journey, foldJourney([]))).toEqual([]);
  });

  it("asks the current step's outgoing conditions of an active journey, with deterministic ids", () => {
    const conditions = journeyConditions(journey, foldJourney([activated]));
    expect(conditions.length).toBeGreaterThan(0);
    for (const c of conditions) {
      expect(c).toMatchObject({ journeyId: journey.id, kind: 'transition', from: 'ask_order' });
      expect(isJourneyConditionId(c.id)).toBe(true);
    }
    expect(journeyConditions(journey, foldJourney([activated]))).toEqual(conditions);
  });

  it('evaluates: what held, each condition text, and the first backtrack that held', () => {
    const conditions = journeyConditions(journey, foldJourney([activated]));
    const first = conditions[0]!;
    const { held, evaluated, backtrack } = evaluateJourneyConditions(conditions, new Set([first.id]));
    expect(held).toEqual([first]);
    expect(evaluated[first.condition]).toBe(true);
    expect(Object.values(evaluated).filter(Boolean)).toHaveLength(1);
    expect(backtrack).toBeUndefined();
    expect(evaluateJourneyConditions(conditions, new Set()).held).toEqual([]);
  });
});
