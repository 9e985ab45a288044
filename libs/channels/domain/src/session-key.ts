/** One session per conversation (docs/data-model.md#bindings), keyed `{agent_id}:{channel}:{account}:{peer}`; peer is "main" when absent. */
export interface ConversationAddress {
  agent_id: string;
  channel: string;
  account?: string | undefined;
  peer?: string | undefined;
}

const part = (value: string | undefined, fallback: string): string =>
  value === undefined || value === '' ? fallback : value.replaceAll(':', '%3A');

/** ':' inside a part is escaped, so two different conversations never share a key. */
export function sessionKey(address: ConversationAddress): string {
  return [part(address.agent_id, ''), part(address.channel, ''), part(address.account, 'default'), part(address.peer, 'main')].join(':');
}
