import { budgetProblems, budgetScopes, chargeOf, crossedThresholds, periodOf } from './budgets.js';

describe('token budgets', () => {
  // 2026-11-30T23:59:59.500Z
  const now = 1_796_083_199_500;

  it('periods are UTC days and months; a session never resets', () => {
    expect(periodOf('day', now)).toEqual({
      id: '2026-11-30',
      start: '2026-11-30T00:00:00.000Z',
      resetsAt: '2026-12-01T00:00:00.000Z',
      resetsAtMs: 1_796_083_200_000,
    });
    expect(periodOf('month', now)).toEqual({
      id: '2026-11',
      start: '2026-11-01T00:00:00.000Z',
      resetsAt: '2026-12-01T00:00:00.000Z',
      resetsAtMs: 1_796_083_200_000,
    });
    // 2026-12-31T12:00:00Z, 2028-02-29T08:00:00Z (leap day), 1999-12-31T23:00:00Z
    expect(periodOf('month', 1_798_718_400_000)).toMatchObject({ id: '2026-12', resetsAt: '2027-01-01T00:00:00.000Z' });
    expect(periodOf('day', 1_835_424_000_000)).toMatchObject({ id: '2028-02-29', resetsAt: '2028-03-01T00:00:00.000Z' });
    expect(periodOf('month', 946_681_200_000)).toMatchObject({
      id: '1999-12',
      start: '1999-12-01T00:00:00.000Z',
      resetsAt: '2000-01-01T00:00:00.000Z',
    });
    expect(periodOf('session', now)).toEqual({ id: 'session' });
  });

  it("a call is charged to the agent's day and month, its session, and the workspace's month", () => {
    const scopes = budgetScopes({
      agentId: 'a1',
      sessionId: 's1',
      agent: {
        limits: [
          { period: 'day', tokens: 1000 },
          { period: 'month', cost_usd: 2.5 },
          { period: 'session', tokens: 300 },
        ],
      },
      workspaceId: 'w1',
      workspace: { limits: [{ period: 'month', tokens: 1_000_000 }] },
      nowMs: now,
    });
    expect(scopes.map((s) => [s.key, s.period_id, s.unit, s.limit, s.resets_at])).toEqual([
      ['agent:a1:day:tokens', '2026-11-30', 'tokens', 1000, '2026-12-01T00:00:00.000Z'],
      ['agent:a1:month:usd', '2026-11', 'usd', 2_500_000, '2026-12-01T00:00:00.000Z'],
      ['session:s1:tokens', 'session', 'tokens', 300, undefined],
      ['workspace:w1:month:tokens', '2026-11', 'tokens', 1_000_000, '2026-12-01T00:00:00.000Z'],
    ]);
  });

  it('reports the 80 % warning and exhaustion once, when crossed', () => {
    expect(crossedThresholds(70, 85, 100)).toEqual(['warning']);
    expect(crossedThresholds(85, 90, 100)).toEqual([]);
    expect(crossedThresholds(70, 120, 100)).toEqual(['warning', 'exhausted']);
    expect(chargeOf('tokens', { input_tokens: 12, output_tokens: 3, cost_estimate_usd: 0.1 })).toBe(15);
    expect(chargeOf('usd', { input_tokens: 12, output_tokens: 3, cost_estimate_usd: 0.000_123_4 })).toBe(123);
  });

  it('names the field and rule of a bad limit', () => {
    expect(
      budgetProblems({
        limits: [
          { period: 'day', tokens: 0 },
          { period: 'day', tokens: 5, cost_usd: 1 },
          { period: 'week' as 'day', tokens: 1 },
        ],
      }),
    ).toEqual([
      { field: 'budget.limits[0].tokens', rule: 'tokens must be a positive integer' },
      { field: 'budget.limits[1]', rule: 'give exactly one of tokens and cost_usd' },
      { field: 'budget.limits[1]', rule: 'only one tokens limit per period (day)' },
      { field: 'budget.limits[2].period', rule: 'period must be one of session, day, month' },
    ]);
  });
});
