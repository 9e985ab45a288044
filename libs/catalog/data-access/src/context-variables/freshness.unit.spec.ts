import { isStale, isValidCron, unlessStale } from './freshness.js';

describe('freshness rules', () => {
  const now = new Date('2026-11-27T11:05:00.000Z');

  it('a value is stale once a tick of the rule fell after it was stored', () => {
    expect(isStale('2026-11-27T10:20:00.000Z', '0 * * * *', now)).toBe(true); // 11:00 came after 10:20
    expect(isStale('2026-11-27T11:01:00.000Z', '0 * * * *', now)).toBe(false);
    expect(isStale(undefined, '0 * * * *', now)).toBe(true);
    expect(isStale('2020-01-01T00:00:00.000Z', undefined, now)).toBe(false);
  });

  it('without a tool, a stale value counts as missing; with a tool (refreshed by the turn) or no rule, it is kept', () => {
    const old = { data: 120, last_modified: '2026-11-26T01:00:00.000Z' }; // before today's 02:30 tick
    const recent = { data: 80, last_modified: '2026-11-27T03:00:00.000Z' };
    expect(unlessStale(old, { freshness_rules: '30 2 * * *' }, now)).toBeUndefined();
    expect(unlessStale(recent, { freshness_rules: '30 2 * * *' }, now)).toBe(recent);
    expect(unlessStale(old, { freshness_rules: '30 2 * * *', tool_id: { service_name: 'finance', tool_name: 'balance' } }, now)).toBe(old);
    expect(unlessStale(old, {}, now)).toBe(old);
    expect(unlessStale(undefined, { freshness_rules: '30 2 * * *' }, now)).toBeUndefined();
  });

  it('checks that a rule parses', () => {
    expect(isValidCron('30 2 * * *')).toBe(true);
    expect(isValidCron('61 2 * * *')).toBe(false);
  });
});
