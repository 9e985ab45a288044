import type { Change } from './plan.js';
import { defaultOf, isPlainObject, type Entry, type ResourceKind } from './resources.js';

/** One call of Tenet's REST API; `schema` names the request body's component in the server's OpenAPI document. */
export interface ApiRequest {
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: Entry;
  schema?: string;
  /** A journey's condition texts to add / remove: the client turns texts into condition guideline ids first. */
  journeyConditions?: { add: string[]; remove: string[] };
}

/** Collection path and request schemas of each kind (Parlant's routes and Tenet's extensions). */
const ROUTES: Record<
  Exclude<ResourceKind, 'relationships' | 'tool_services' | 'knowledge'>,
  { path: string; create: string; update: string }
> = {
  agent: { path: '/agents', create: 'AgentCreationDto', update: 'AgentUpdateDto' },
  guidelines: { path: '/guidelines', create: 'GuidelineCreationDto', update: 'GuidelineUpdateDto' },
  journeys: { path: '/journeys', create: 'JourneyCreationDto', update: 'JourneyUpdateDto' },
  context_variables: { path: '/context-variables', create: 'ContextVariableCreationDto', update: 'ContextVariableUpdateDto' },
  canned_responses: { path: '/canned_responses', create: 'CannedResponseCreationDto', update: 'CannedResponseUpdateDto' },
  capabilities: { path: '/capabilities', create: 'CapabilityCreationDto', update: 'CapabilityUpdateDto' },
  terms: { path: '/terms', create: 'TermCreationDto', update: 'TermUpdateDto' },
  intents: { path: '/intents', create: 'IntentCreationDto', update: 'IntentUpdateDto' },
};

/** Fields PATCH cannot change on the server: a change to one is refused before anything is written. */
export const NOT_UPDATABLE: Partial<Record<ResourceKind, string[]>> = {
  guidelines: ['track'],
  canned_responses: ['field_dependencies'],
  relationships: ['source', 'target', 'kind'],
};

/** Tool services and knowledge sources carry values resolved by the client (environment, file contents). */
export interface ResolvedInputs {
  /** tool service name → its PUT body with environment references resolved */
  services: Map<string, Entry>;
  /** knowledge id → its POST /knowledge/sources body (content read from the file) */
  knowledge: Map<string, Entry>;
}

const scopedTags = (entry: Entry, agentId: string): string[] => [`agent:${agentId}`, ...((entry['tags'] as string[] | undefined) ?? [])];
const enc = encodeURIComponent;

/** The tags PATCH shape ({add, remove}), from the current and desired tag sets. */
const tagsPatch = (current: unknown, desired: unknown): { add: string[]; remove: string[] } => {
  const before = new Set((current as string[] | undefined) ?? []);
  const after = new Set((desired as string[] | undefined) ?? []);
  return { add: [...after].filter((t) => !before.has(t)), remove: [...before].filter((t) => !after.has(t)) };
};

/** The request that creates a resource from its (canonical) entry. */
export function createRequest(kind: ResourceKind, entry: Entry, agentId: string, inputs: ResolvedInputs): ApiRequest {
  switch (kind) {
    case 'tool_services':
      return {
        method: 'PUT',
        path: `/services/${enc(String(entry['name']))}`,
        body: inputs.services.get(String(entry['name'])) ?? {},
        schema: 'ServiceUpdateDto',
      };
    case 'knowledge':
      return {
        method: 'POST',
        path: '/knowledge/sources',
        body: inputs.knowledge.get(String(entry['id'])) ?? {},
        schema: 'KnowledgeSourceDto',
      };
    case 'relationships':
      return {
        method: 'POST',
        path: '/relationships',
        body: { source_guideline: entry['source'], target_guideline: entry['target'], kind: entry['kind'] },
        schema: 'RelationshipCreationDto',
      };
    case 'agent':
      return { method: 'POST', path: ROUTES.agent.path, body: entry, schema: ROUTES.agent.create };
    default:
      return { method: 'POST', path: ROUTES[kind].path, body: { ...entry, tags: scopedTags(entry, agentId) }, schema: ROUTES[kind].create };
  }
}

/** The value to send for a changed field: the file's, or the server's default when the file left it out. */
const valueFor = (kind: ResourceKind, desired: Entry, field: string): unknown => {
  if (desired[field] !== undefined) return desired[field];
  const fallback = defaultOf(kind, field);
  return fallback === undefined ? null : fallback;
};

/**
 * The requests that turn `current` into `desired` (both canonical) — PATCH in the shapes each route takes
 * (Parlant's `{add, remove}` tags, `{set, unset}` metadata, `{upsert, remove}` labels). Services and knowledge
 * are replaced by PUT / POST with their id, which the server treats as a replacement.
 */
export function updateRequests(change: Extract<Change, { action: 'update' }>, agentId: string, inputs: ResolvedInputs): ApiRequest[] {
  const { kind, desired, current } = change;
  if (kind === 'tool_services' || kind === 'knowledge') return [createRequest(kind, desired, agentId, inputs)];
  if (kind === 'relationships') return [];
  const route = ROUTES[kind];
  const changed = [...new Set(change.fields.map((f) => f.path.split('.')[0] ?? f.path))];
  const body: Entry = {};
  let journeyConditions: ApiRequest['journeyConditions'];
  for (const field of changed) {
    const value = valueFor(kind, desired, field);
    if (field === 'tags') body['tags'] = tagsPatch(current['tags'], desired['tags']);
    else if (field === 'labels') {
      const patch = tagsPatch(current['labels'], desired['labels']);
      body['labels'] = { upsert: patch.add, remove: patch.remove };
    } else if (field === 'metadata') {
      const after = isPlainObject(desired['metadata']) ? desired['metadata'] : {};
      const before = isPlainObject(current['metadata']) ? current['metadata'] : {};
      body['metadata'] = { set: after, unset: Object.keys(before).filter((k) => !(k in after)) };
    } else if (field === 'conditions' && kind === 'journeys') {
      const patch = tagsPatch(current['conditions'], desired['conditions']);
      journeyConditions = { add: patch.add, remove: patch.remove };
    } else if (kind === 'agent' && (field === 'config' || field === 'matching' || field === 'retrieval' || field === 'intents')) {
      // Merged into the stored values by the server: send every key, defaults for the ones the file leaves out.
      body[field] = { ...(defaultOf(kind, field) as Entry), ...((desired[field] as Entry | undefined) ?? {}) };
    } else body[field] = value;
  }
  const requests: ApiRequest[] = [];
  if (Object.keys(body).length > 0 || journeyConditions) {
    requests.push({
      method: 'PATCH',
      path: `${route.path}/${enc(change.key)}`,
      body,
      schema: route.update,
      ...(journeyConditions ? { journeyConditions } : {}),
    });
  }
  return requests;
}

/** The request that deletes a resource. */
export function deleteRequest(kind: ResourceKind, key: string, serverId?: string): ApiRequest {
  switch (kind) {
    case 'knowledge':
      return { method: 'DELETE', path: `/knowledge/sources/${enc(key)}` };
    case 'relationships':
      return { method: 'DELETE', path: `/relationships/${enc(serverId ?? key)}` };
    case 'tool_services':
      return { method: 'DELETE', path: `/services/${enc(key)}` };
    default:
      return { method: 'DELETE', path: `${ROUTES[kind].path}/${enc(key)}` };
  }
}

/** Changes the server cannot make in place (a guideline's `track`): named so apply refuses them up front. */
export function unsupportedChanges(changes: readonly Change[]): string[] {
  return changes.flatMap((change) =>
    change.action === 'update'
      ? change.fields
          .filter((f) => (NOT_UPDATABLE[change.kind] ?? []).includes(f.path.split('.')[0] ?? ''))
          .map(
            (f) =>
              `${change.kind} ${change.key}: ${f.path} cannot be changed in place; delete the entry, apply with --prune, then add it back`,
          )
      : [],
  );
}
