import { DEFAULT_INTENT_SETTINGS } from '@tenet/intents-domain';
import { defaultJourneyTimeouts } from '@tenet/journeys-domain';
import { DEFAULT_NO_MATCH_MESSAGE, templateFields } from '@tenet/matching-domain';
import { DEFAULT_FAILURE_REPLY } from '@tenet/session-domain';
import { DEFAULT_BUDGET_EXHAUSTED_MESSAGE } from '@tenet/metering-domain';

/**
 * The kinds of resources one definition file holds, in the order apply creates them (a kind only refers to kinds
 * before it: guidelines name services' tools, journeys' steps name tools and guidelines, intents name the agent's or
 * services' tools and journeys, relationships name guidelines). Deletes run in the reverse order.
 */
export const RESOURCE_KINDS = [
  'tool_services',
  'agent',
  'context_variables',
  'guidelines',
  'journeys',
  'intents',
  'relationships',
  'canned_responses',
  'capabilities',
  'terms',
  'knowledge',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export type Entry = Record<string, unknown>;

/** One resource as the plan compares it: its kind, its key (the human-chosen id) and its canonical entry. */
export interface Resource {
  kind: ResourceKind;
  key: string;
  entry: Entry;
  /** The server's own id where it differs from the key (a relationship's generated id). */
  serverId?: string;
}

const AGENT_CONFIG = {
  max_history_length: 50,
  temperature: 0.7,
  max_tokens: 2048,
  tool_timeout_secs: 30,
  auto_extract_context: false,
  enable_journeys: true,
};
const AGENT_MATCHING = { threshold: 0.3, top_n: 3, prefilter_k: 40, max_batch_tokens: 12_000, max_batches: 3, temperatures: [0, 0.3] };
const AGENT_RETRIEVAL = { max_results: 5, threshold: 0.5, sources: [] };

/**
 * What the server fills in when a field is left out (the views of GET /agents/{id}, /guidelines/{id}, …). A field
 * equal to its default is left out of exported files and of comparisons, so a file that omits it and a server that
 * shows it agree. Nested objects list their own defaults; `{}` under `items` gives the defaults of array items.
 * Checked against a real server by the CLI's round-trip test (a minimal file applied twice changes nothing).
 */
export const SERVER_DEFAULTS: Record<ResourceKind, Entry> = {
  agent: {
    max_engine_iterations: 3,
    composition_mode: 'fluid',
    message_output_mode: 'block',
    tags: [],
    journeys: [],
    config: AGENT_CONFIG,
    matching: AGENT_MATCHING,
    retrieval: AGENT_RETRIEVAL,
    intents: { ...DEFAULT_INTENT_SETTINGS },
    tools: [],
    fallback: null,
    no_match_message: DEFAULT_NO_MATCH_MESSAGE,
    failure_reply: DEFAULT_FAILURE_REPLY,
    budget: null,
    status: 'active',
    soul: null,
  },
  guidelines: {
    criticality: 'medium',
    enabled: true,
    metadata: {},
    track: true,
    labels: [],
    priority: 0,
    tools: [],
    required_context: [],
    tags: [],
  },
  journeys: { tags: [], labels: [], priority: 0, timeouts: { ...defaultJourneyTimeouts }, on_failure: { action: 'end' } },
  context_variables: { tags: [], metadata: {}, required: false },
  intents: { description: '', examples: [], keywords: [], parameters: null, tool: null, journey_id: null, tags: [] },
  canned_responses: { tags: [], signals: [], metadata: {}, field_dependencies: [] },
  capabilities: { tags: [] },
  terms: { synonyms: [], tags: [] },
  relationships: {},
  tool_services: {},
  knowledge: { format: 'markdown' },
};

/** Defaults inside nested values that are not plain objects of the kind (array items, nullable objects). */
const NESTED_DEFAULTS: Partial<Record<ResourceKind, Record<string, Entry>>> = {
  agent: {
    budget: { on_exhausted: 'message', exhausted_message: DEFAULT_BUDGET_EXHAUSTED_MESSAGE },
    soul: { restrictions: [], forbidden_topics: [] },
  },
  journeys: { steps: { required_context: [], guidelines: [] }, transitions: { priority: 0 } },
  canned_responses: { fields: { description: '', examples: [] } },
};

/** Fields the server adds that are not part of a definition. */
const SERVER_ONLY = new Set(['creation_utc', 'updated_at', 'modified_utc', 'triggers', 'ingested_at', 'chunk_count', 'embedding_model']);

export const isPlainObject = (value: unknown): value is Entry => typeof value === 'object' && value !== null && !Array.isArray(value);

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const other = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === other.length && keys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Drops every key whose value equals its default, recursing into objects that have their own defaults. */
function dropDefaults(value: Entry, defaults: Entry): Entry {
  const out: Entry = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const d = defaults[key];
    if (d !== undefined && deepEqual(v, d)) continue;
    if (isPlainObject(v) && isPlainObject(d)) {
      const inner = dropDefaults(v, d);
      if (Object.keys(inner).length > 0) out[key] = inner;
      continue;
    }
    out[key] = v;
  }
  return out;
}

const sortedUnique = (values: unknown): string[] => [...new Set((Array.isArray(values) ? values : []).map(String))].sort();

/**
 * The canonical form of an entry, whether it came from a file or from the server: server-only fields and defaults
 * dropped, the agent's own `agent:<id>` tag left implicit, tags as a sorted set. Two canonical entries are equal
 * exactly when apply has nothing to change.
 */
export function canonicalEntry(kind: ResourceKind, entry: Entry, agentId: string): Entry {
  const copy: Entry = {};
  for (const [key, value] of Object.entries(entry)) if (!SERVER_ONLY.has(key) && value !== undefined) copy[key] = value;
  if (kind === 'agent') {
    if (Array.isArray(copy['tags'])) copy['tags'] = sortedUnique(copy['tags']);
  } else if ('tags' in copy) {
    copy['tags'] = sortedUnique(copy['tags']).filter((t) => t !== `agent:${agentId}`);
  }
  for (const [field, itemDefaults] of Object.entries(NESTED_DEFAULTS[kind] ?? {})) {
    const value = copy[field];
    if (Array.isArray(value)) copy[field] = value.map((item) => (isPlainObject(item) ? dropDefaults(item, itemDefaults) : item));
    else if (isPlainObject(value)) copy[field] = dropDefaults(value, itemDefaults);
  }
  if (kind === 'canned_responses' && Array.isArray(copy['fields'])) {
    // Without declared fields the server derives them from the template's placeholders: the same as none.
    const derived = templateFields(String(copy['value'] ?? '')).map((name) => ({ name }));
    if (deepEqual(copy['fields'], derived)) delete copy['fields'];
  }
  return dropDefaults(copy, SERVER_DEFAULTS[kind]);
}

/** The value a field has on the server when the definition leaves it out (for updates that reset a field). */
export function defaultOf(kind: ResourceKind, field: string): unknown {
  return SERVER_DEFAULTS[kind][field];
}

/** The key of a relationship: relationships have no id of their own in a file, they are what they connect. */
export const relationshipKey = (r: { source: string; target: string; kind: string }): string => `${r.source} -[${r.kind}]-> ${r.target}`;

/** The key of a resource of a kind (its human-chosen id; services are named; the agent is the agent's id). */
export function keyOf(kind: ResourceKind, entry: Entry): string {
  if (kind === 'relationships') return relationshipKey(entry as { source: string; target: string; kind: string });
  if (kind === 'tool_services') return String(entry['name']);
  return String(entry['id']);
}
