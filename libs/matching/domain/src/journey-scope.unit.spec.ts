import type { MatchableGuideline } from './guideline-matching.js';
import { scopeToJourneys } from './journey-scope.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({
  id,
  condition: id,
  action: id,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});

describe('scopeToJourneys — matching step 2: journey-scoped guidelines', () => {
  const free = g('free');
  const anyStep = g('any-step', { journey_id: 'booking' });
  const atStep = g('at-step', { journey_id: 'booking', journey_step: 'dates' });
  const otherJourney = g('other', { journey_id: 'returns' });
  const all = [free, anyStep, atStep, otherJourney];

  it('given no active journey, when scoping, then only guidelines without a journey apply', () => {
    expect(scopeToJourneys(all).map((x) => x.id)).toEqual(['free']);
  });

  it('given the booking journey at another step, when scoping, then its step-free guidelines apply but not the step-bound one', () => {
    expect(scopeToJourneys(all, { journey_id: 'booking', step_id: 'payment' }).map((x) => x.id)).toEqual(['free', 'any-step']);
  });

  it('given the booking journey at the dates step, when scoping, then all booking guidelines apply, and never another journey’s', () => {
    expect(scopeToJourneys(all, { journey_id: 'booking', step_id: 'dates' }).map((x) => x.id)).toEqual(['free', 'any-step', 'at-step']);
  });

  it('given an active journey whose step is unknown, when scoping, then step-bound guidelines wait for the step', () => {
    expect(scopeToJourneys(all, { journey_id: 'booking' }).map((x) => x.id)).toEqual(['free', 'any-step']);
  });
});
