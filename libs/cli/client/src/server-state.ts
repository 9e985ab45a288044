import { canonicalEntry, type Entry, type Resource, type ResourceKind } from '@tenet/cli-domain';
import type { TenetApi } from './api-client.js';

interface Tagged extends Entry {
  id: string;
  tags?: string[];
}

/** Kinds that belong to an agent by its `agent:<id>` tag, with their list routes. */
const TAGGED: { kind: ResourceKind; path: string }[] = [
  { kind: 'context_variables', path: '/context-variables' },
  { kind: 'canned_responses', path: '/canned_responses' },
  { kind: 'capabilities', path: '/capabilities' },
  { kind: 'terms', path: '/terms' },
  { kind: 'intents', path: '/intents' },
];

/**
 * The server's current definitions of one agent, canonical (as the plan compares them): the agent, everything tagged
 * `agent:<id>` (intents included), the relationships between its guidelines, its knowledge sources, and the tool services it names or
 * the files name (`serviceNames`). Nothing when the agent does not exist.
 */
export async function readAgentState(api: TenetApi, agentId: string, serviceNames: readonly string[] = []): Promise<Resource[]> {
  const agent = await api.find<Entry>(`/agents/${encodeURIComponent(agentId)}`);
  if (!agent) return [];
  const tag = `agent:${agentId}`;
  const mine = <T extends Tagged>(items: T[]): T[] => items.filter((item) => (item.tags ?? []).includes(tag));
  const resources: Resource[] = [];
  const add = (kind: ResourceKind, key: string, entry: Entry, serverId?: string): void => {
    resources.push({ kind, key, entry: canonicalEntry(kind, entry, agentId), ...(serverId ? { serverId } : {}) });
  };
  add('agent', agentId, agent);

  const allGuidelines = await api.get<Tagged[]>('/guidelines');
  const guidelines = mine(allGuidelines);
  for (const guideline of guidelines) add('guidelines', guideline.id, guideline);
  const conditionText = new Map(allGuidelines.map((g) => [g.id, String(g['condition'])]));

  for (const journey of mine(await api.get<Tagged[]>('/journeys'))) {
    // A journey's conditions are condition guidelines on the server and texts in a file.
    const conditions = ((journey['conditions'] as string[] | undefined) ?? []).map((id) => conditionText.get(id) ?? id);
    add('journeys', journey.id, { ...journey, conditions });
  }
  for (const { kind, path } of TAGGED) for (const item of mine(await api.get<Tagged[]>(path))) add(kind, item.id, item);

  const ids = new Set(guidelines.map((g) => g.id));
  const relationships =
    await api.get<{ id: string; kind: string; source_guideline?: { id: string }; target_guideline?: { id: string } }[]>(
      '/relationships?indirect=false',
    );
  for (const r of relationships) {
    const source = r.source_guideline?.id;
    const target = r.target_guideline?.id;
    // A relationship belongs to its source's agent (another agent's file may point at this agent's guidelines).
    if (!source || !target || !ids.has(source)) continue;
    const entry = { source, target, kind: r.kind };
    add('relationships', `${source} -[${r.kind}]-> ${target}`, entry, r.id);
  }

  const named = new Set(serviceNames);
  for (const guideline of guidelines)
    for (const tool of (guideline['tools'] as string[] | undefined) ?? []) named.add(tool.split(':')[0] ?? tool);
  for (const journey of resources.filter((r) => r.kind === 'journeys')) {
    for (const step of (journey.entry['steps'] as { tool?: string }[] | undefined) ?? [])
      if (step.tool) named.add(step.tool.split(':')[0] ?? step.tool);
  }
  for (const intent of resources.filter((r) => r.kind === 'intents')) {
    const tool = intent.entry['tool'];
    if (typeof tool === 'string' && tool.includes(':')) named.add(tool.split(':')[0] ?? tool);
  }
  for (const tool of (agent['tools'] as { service_name?: string }[] | undefined) ?? []) if (tool.service_name) named.add(tool.service_name);
  for (const variable of resources.filter((r) => r.kind === 'context_variables')) {
    const service = (variable.entry['tool_id'] as { service_name?: string } | undefined)?.service_name;
    if (service) named.add(service);
  }
  for (const name of [...named].sort()) {
    const service = await api.find<{ name: string; kind: string; url: string; auth?: { scheme: string; secret_hint?: string } }>(
      `/services/${encodeURIComponent(name)}`,
    );
    // Credentials are write-only: the server shows their scheme and the secret's hint, never the values.
    const auth = service?.auth
      ? { scheme: service.auth.scheme, ...(service.auth.secret_hint ? { secret_hint: service.auth.secret_hint } : {}) }
      : undefined;
    if (service) add('tool_services', name, { name: service.name, kind: service.kind, url: service.url, ...(auth ? { auth } : {}) });
  }

  // The knowledge routes are served by the memory store; a gateway without one has no sources to compare.
  const sources = (await api.request<Entry[]>('GET', '/knowledge/sources', undefined, { allow404: true })) ?? [];
  for (const source of sources) {
    if (!((source['agent_ids'] as string[] | undefined) ?? []).includes(agentId)) continue;
    const { agent_ids: _agents, ...rest } = source;
    add('knowledge', String(source['id']), rest);
  }
  return resources;
}
