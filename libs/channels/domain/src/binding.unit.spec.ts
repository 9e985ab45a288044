import { bindingMatchProblem, resolveBinding, type BindingRule, type InboundOrigin } from './binding.js';

const at = (n: number): string => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
const rule = (id: string, agent: string, fields: Partial<BindingRule>, created = 0): BindingRule => ({
  id,
  agent_id: agent,
  creation_utc: at(created),
  ...fields,
});

// A message from peer u1 in guild g1 / team t1 through account a1 of telegram: every rank of binding applies to it.
const message: InboundOrigin = { channel: 'telegram', account_id: 'a1', peer_id: 'u1', guild_id: 'g1', team_id: 't1' };
const peer = rule('b-peer', 'agent-peer', { peer_id: 'u1' });
const guild = rule('b-guild', 'agent-guild', { guild_id: 'g1' });
const team = rule('b-team', 'agent-team', { team_id: 't1' });
const account = rule('b-account', 'agent-account', { account_id: 'a1' });
const channel = rule('b-channel', 'agent-channel', { channel: 'telegram' });
const all = [channel, account, team, guild, peer];

describe('binding resolution (peer → guild → team → account → channel → default agent)', () => {
  it('row 1: a peer binding beats every other', () => {
    const r = resolveBinding(all, message, 'fallback');
    expect(r).toMatchObject({ outcome: 'binding', agent_id: 'agent-peer', rank: 'peer_id' });
    expect(r.reason).toContain('outranks 4 other matching bindings');
  });

  it('row 2: without a peer binding, the guild binding wins', () => {
    expect(resolveBinding([channel, account, team, guild], message, 'fallback')).toMatchObject({
      agent_id: 'agent-guild',
      rank: 'guild_id',
    });
  });

  it('row 3: without peer and guild bindings, the team binding wins', () => {
    expect(resolveBinding([channel, account, team], message, 'fallback')).toMatchObject({ agent_id: 'agent-team', rank: 'team_id' });
  });

  it('row 4: then the account binding (one setting no peer or guild)', () => {
    expect(resolveBinding([channel, account], message, 'fallback')).toMatchObject({ agent_id: 'agent-account', rank: 'account_id' });
  });

  it('row 5: then the channel binding (one setting no account or peer)', () => {
    expect(resolveBinding([channel], message, 'fallback')).toMatchObject({ agent_id: 'agent-channel', rank: 'channel' });
  });

  it('row 6: no binding matches → the default agent', () => {
    const r = resolveBinding([rule('other', 'x', { channel: 'slack' })], message, 'fallback');
    expect(r).toMatchObject({ outcome: 'default', agent_id: 'fallback' });
    expect(r.considered).toEqual([{ binding_id: 'other', matched: false, reason: 'channel is "slack", the message\'s is "telegram"' }]);
  });

  it('no binding and no default agent → a refusal that says why', () => {
    const r = resolveBinding([], message, undefined);
    expect(r).toEqual({
      outcome: 'refused',
      reason: 'no binding matches this conversation and the workspace has no default agent',
      considered: [],
    });
  });

  it('a binding applies only when every field it sets matches', () => {
    const peerElsewhere = rule('p2', 'agent-x', { peer_id: 'u1', channel: 'slack' });
    expect(resolveBinding([peerElsewhere, account], message, undefined)).toMatchObject({ agent_id: 'agent-account' });
    expect(resolveBinding([rule('acc', 'a', { account_id: 'a1' })], { channel: 'telegram' }, undefined)).toMatchObject({
      outcome: 'refused',
    });
  });

  it('within one rank the narrower binding wins, then the older one', () => {
    const narrow = rule('narrow', 'agent-narrow', { account_id: 'a1', channel: 'telegram' }, 5);
    expect(resolveBinding([account, narrow], message, undefined)).toMatchObject({ agent_id: 'agent-narrow' });
    const older = rule('older', 'agent-older', { channel: 'telegram' }, 1);
    const newer = rule('newer', 'agent-newer', { channel: 'telegram' }, 2);
    expect(resolveBinding([newer, older], message, undefined)).toMatchObject({ agent_id: 'agent-older' });
  });

  it('a binding must set at least one match field', () => {
    expect(bindingMatchProblem({})).toBe('a binding must set at least one of peer_id, guild_id, team_id, account_id, channel');
    expect(bindingMatchProblem({ channel: '' })).toBeDefined();
    expect(bindingMatchProblem({ team_id: 't' })).toBeUndefined();
  });
});
