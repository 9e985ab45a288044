/**
 * A binding (docs/data-model.md#bindings): a routing rule from where a message came from (channel, account, peer, guild, team) to the
 * agent that answers it, and the order in which bindings win. Pure: no I/O, no clock.
 */

/** The fields a binding may match on, most specific first: the order in which they rank. */
export const MATCH_FIELDS = ['peer_id', 'guild_id', 'team_id', 'account_id', 'channel'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

export interface BindingRule {
  id: string;
  agent_id: string;
  channel?: string | undefined;
  account_id?: string | undefined;
  peer_id?: string | undefined;
  guild_id?: string | undefined;
  team_id?: string | undefined;
  /** When it was created (ISO 8601): among equally specific bindings, the older one wins, so a new rule never silently takes over. */
  creation_utc: string;
}

/** Where an inbound platform message came from, as its adapter reports it. */
export interface InboundOrigin {
  channel: string;
  account_id?: string | undefined;
  peer_id?: string | undefined;
  guild_id?: string | undefined;
  team_id?: string | undefined;
}

export type Resolution =
  | {
      outcome: 'binding';
      agent_id: string;
      binding: BindingRule;
      rank: MatchField;
      reason: string;
      considered: Array<{ binding_id: string; matched: boolean; reason: string }>;
    }
  | { outcome: 'default'; agent_id: string; reason: string; considered: Array<{ binding_id: string; matched: boolean; reason: string }> }
  | { outcome: 'refused'; reason: string; considered: Array<{ binding_id: string; matched: boolean; reason: string }> };

/** The match fields a binding sets (non-empty strings). */
export function setFields(binding: Pick<BindingRule, MatchField>): MatchField[] {
  return MATCH_FIELDS.filter((field) => typeof binding[field] === 'string' && (binding[field] as string).length > 0);
}

/** A binding must set at least one of channel, account_id, peer_id, guild_id, team_id (else it would match everything). */
export function bindingMatchProblem(binding: Pick<BindingRule, MatchField>): string | undefined {
  return setFields(binding).length === 0 ? `a binding must set at least one of ${MATCH_FIELDS.join(', ')}` : undefined;
}

/**
 * A binding applies when every field it sets equals the message's; it then ranks by the most specific field it
 * sets (peer → guild → team → account → channel). So a binding for `account_id` alone ranks as "account" and
 * one for `channel` alone as "channel": an account binding is one without peer/guild, a channel binding one
 * without account/peer. Among applicable bindings of the same rank the one setting more fields wins (it is narrower),
 * then the older one.
 */
export function resolveBinding(bindings: readonly BindingRule[], origin: InboundOrigin, defaultAgentId: string | undefined): Resolution {
  const considered: Array<{ binding_id: string; matched: boolean; reason: string }> = [];
  let best: { binding: BindingRule; rankIndex: number; fields: number } | undefined;
  for (const binding of bindings) {
    const fields = setFields(binding);
    if (fields.length === 0) {
      considered.push({ binding_id: binding.id, matched: false, reason: 'sets no match field' });
      continue;
    }
    const mismatch = fields.find((field) => binding[field] !== origin[field]);
    if (mismatch !== undefined) {
      const actual = origin[mismatch];
      considered.push({
        binding_id: binding.id,
        matched: false,
        reason: `${mismatch} is "${binding[mismatch] as string}", the message's is ${actual === undefined ? 'not set' : `"${actual}"`}`,
      });
      continue;
    }
    const rankIndex = MATCH_FIELDS.indexOf(fields[0] as MatchField);
    considered.push({ binding_id: binding.id, matched: true, reason: `matches on ${fields.join(', ')} (rank: ${fields[0] as string})` });
    if (best === undefined || better({ binding, rankIndex, fields: fields.length }, best))
      best = { binding, rankIndex, fields: fields.length };
  }
  if (best) {
    const rank = MATCH_FIELDS[best.rankIndex] as MatchField;
    const rivals = considered.filter((c) => c.matched).length - 1;
    const reason = `binding ${best.binding.id} matches on ${rank}${rivals > 0 ? ` and outranks ${rivals} other matching binding${rivals === 1 ? '' : 's'} (order: ${MATCH_FIELDS.join(' → ')} → default agent)` : ''}`;
    return { outcome: 'binding', agent_id: best.binding.agent_id, binding: best.binding, rank, reason, considered };
  }
  if (defaultAgentId !== undefined)
    return {
      outcome: 'default',
      agent_id: defaultAgentId,
      reason: `no binding matches; the workspace's default agent ${defaultAgentId} answers`,
      considered,
    };
  return { outcome: 'refused', reason: 'no binding matches this conversation and the workspace has no default agent', considered };
}

function better(
  a: { binding: BindingRule; rankIndex: number; fields: number },
  b: { binding: BindingRule; rankIndex: number; fields: number },
): boolean {
  if (a.rankIndex !== b.rankIndex) return a.rankIndex < b.rankIndex;
  if (a.fields !== b.fields) return a.fields > b.fields;
  if (a.binding.creation_utc !== b.binding.creation_utc) return a.binding.creation_utc < b.binding.creation_utc;
  return a.binding.id < b.binding.id;
}
