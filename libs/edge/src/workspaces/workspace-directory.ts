import { Inject, Injectable } from '@nestjs/common';
import { OWNER_STREAM_PREFIX, RESOURCE_ASSIGNED_EVENT_TYPE, ownerStreamId, type ResourceAssignedData } from '@tenet/contracts';
import { ConcurrencyError, type EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import type { Request } from 'express';
import { callerOf } from '../auth/caller.js';
import { DEFAULT_WORKSPACE } from '../auth/credentials.repository.js';
import { StreamCatalog } from '../resources/stream-catalog.js';

/** The customer every anonymous session talks as; it exists in every workspace (Parlant's guest). */
export const GUEST_CUSTOMER_ID = 'guest';

/** Top-level collections whose items belong to a workspace (the first path segment of their routes). */
export const TRACKED_COLLECTIONS = new Set([
  'agents',
  'sessions',
  'customers',
  'guidelines',
  'tags',
  'context-variables',
  'terms',
  'journeys',
  'relationships',
  'canned_responses',
  'capabilities',
  'evaluations',
  'services',
  'intents',
]);

/**
 * The routes that list (GET) and create (POST) the items of a collection, and that collection. Items of a nested
 * collection route (knowledge sources, served by the memory service) are tracked like the top-level ones: created
 * ones are assigned, lists filtered, and `/knowledge/sources/:sourceId` confined by the route's prefix.
 */
export const COLLECTION_ROUTES: Readonly<Record<string, string>> = {
  ...Object.fromEntries([...TRACKED_COLLECTIONS].map((collection) => [`/${collection}`, collection])),
  '/knowledge/sources': 'knowledge-sources',
};

/** Results of non-collection routes that name items of a collection: only the caller's items are returned. */
export const FILTERED_RESULTS: Readonly<Record<string, { collection: string; idField: string; itemsField?: string }>> = {
  '/knowledge/search': { collection: 'knowledge-sources', idField: 'source_id', itemsField: 'chunks' },
};

/**
 * Collections whose items are recorded for the `default` workspace too. A knowledge source may be replaced by
 * POSTing its id again, so an unrecorded id must mean "nobody's yet" rather than "default's" for another workspace
 * to use it (only sources created before this record existed stay unrecorded).
 */
const RECORDED_FOR_DEFAULT = new Set(['knowledge-sources', 'services']);

/**
 * Collections whose items are named by the client with a PUT (tool services): any workspace may claim a name nobody
 * has recorded, and the handler claims it before storing (first claim wins, a default item from before names
 * were recorded is not free) — ADR 0022.
 */
export const CLAIMED_BY_PUT = new Set(['services']);

/**
 * Where requests name resources of a collection (every reference, not only agents and customers: docs/reliability.md#bad-input-bulk-routes-and-references-across-workspaces):
 * a dotted path into the body or query (`*` = each item of an array), and the collection — `tag-ref` for a tag id,
 * which may be Parlant's synthetic `agent:<id>` or `journey:<id>`. A value there (a string, or an array of them) of
 * another workspace is refused like an unknown id.
 */
export const REFERENCE_PATHS: readonly (readonly [path: string, collection: string])[] = [
  ['agent_id', 'agents'],
  ['agent_ids', 'agents'],
  ['customer_id', 'customers'],
  ['session_id', 'sessions'],
  ['journey_id', 'journeys'],
  ['journeys', 'journeys'],
  ['guideline_id', 'guidelines'],
  ['source_guideline', 'guidelines'],
  ['target_guideline', 'guidelines'],
  ['payloads.*.guideline.updated_id', 'guidelines'],
  ['tags', 'tag-ref'],
  ['tags.add', 'tag-ref'],
  ['tags.remove', 'tag-ref'],
  ['tag_id', 'tag-ref'],
  ['source_tag', 'tag-ref'],
  ['target_tag', 'tag-ref'],
  ['tools.*.service_name', 'services'],
  ['tool_id.service_name', 'services'],
  ['source_tool.service_name', 'services'],
  ['target_tool.service_name', 'services'],
];

/** The collection and id a reference names: a tag id `agent:<id>` / `journey:<id>` names that agent or journey. */
export function referencedItem(collection: string, id: string): { collection: string; id: string } {
  if (collection !== 'tag-ref') return { collection, id };
  const synthetic = /^(agent|journey):(.+)$/.exec(id);
  return synthetic ? { collection: `${synthetic[1]}s`, id: synthetic[2] ?? '' } : { collection: 'tags', id };
}

/** REFERENCE_PATHS with each path split into its steps once (the guard looks at all of them on every request). */
export const REFERENCE_STEPS: readonly (readonly [steps: readonly string[], collection: string])[] = REFERENCE_PATHS.map(
  ([path, collection]) => [path.split('.'), collection] as const,
);

const NO_VALUES: readonly string[] = Object.freeze([]);

/**
 * The string values at a dotted path (`*` = every item of an array) of a parsed body or query; `path` may come
 * split into its steps. A root without the path's first key (most requests, for most paths) allocates nothing.
 */
export function valuesAt(root: unknown, path: string | readonly string[]): readonly string[] {
  const steps = typeof path === 'string' ? path.split('.') : path;
  const first = steps[0];
  if (typeof root !== 'object' || root === null || Array.isArray(root) || first === undefined || !Object.hasOwn(root, first))
    return NO_VALUES;
  let nodes: unknown[] = [root];
  for (const step of steps) {
    nodes = nodes.flatMap((node) => {
      if (step === '*') return Array.isArray(node) ? node : [];
      return typeof node === 'object' && node !== null && !Array.isArray(node) && Object.hasOwn(node, step)
        ? [(node as Record<string, unknown>)[step]]
        : [];
    });
  }
  return nodes.flatMap((node) => (Array.isArray(node) ? node : [node])).filter((value): value is string => typeof value === 'string');
}

/**
 * Which workspace each resource belongs to (ADR 0018): an `owner-<collection>-<id>` stream holding one
 * `ResourceAssigned { collection, id, workspace_id }`, written when the resource is created through the API, and
 * read back through a catalog of every such stream (caught up from the shared log on each lookup, so every replica
 * sees every assignment). A resource with no assignment was created before workspaces existed, or by the open
 * embedded mode's anonymous caller: it belongs to `default` — the migration of existing data is this rule, nothing
 * is rewritten.
 */
@Injectable()
export class WorkspaceDirectory {
  private readonly assignments: StreamCatalog<ResourceAssignedData>;
  /** Which agents and customers exist (created, not deleted), read from their streams: every host on the log agrees. */
  private readonly existing: Record<'agents' | 'customers', StreamCatalog<true>>;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    // The event-log relay reads the same index to publish each event under its workspace (EventWorkspaces).
    this.assignments = new StreamCatalog(
      store,
      OWNER_STREAM_PREFIX,
      (current, event) => current ?? (event.type === RESOURCE_ASSIGNED_EVENT_TYPE ? (event.data as ResourceAssignedData) : undefined),
    );
    const lifecycle = (kind: string) => (current: true | undefined, event: { type: string }) =>
      event.type === `${kind}Created` ? true : event.type === `${kind}Deleted` ? undefined : current;
    this.existing = {
      agents: new StreamCatalog<true>(store, 'agent-', lifecycle('Agent')),
      customers: new StreamCatalog<true>(store, 'customer-', lifecycle('Customer')),
    };
  }

  /** Whether an agent or customer of this id exists (in any workspace: pair with `ownerOf`); the guest always does. */
  async exists(collection: 'agents' | 'customers', id: string): Promise<boolean> {
    if (collection === 'customers' && id === GUEST_CUSTOMER_ID) return true;
    const catalog = this.existing[collection];
    await catalog.catchUp();
    return catalog.get(id) === true;
  }

  private stream = ownerStreamId;

  /**
   * The workspace the resource was assigned to, or undefined when it never was (then it is `default`'s). An
   * assignment already read is the answer without a read of the log: the first assignment stands and nothing
   * changes or removes it (`assign`), so it cannot have moved since. Only "not assigned (yet)" is checked against
   * the log, where another replica may have written one meanwhile.
   */
  async recordedOwner(collection: string, id: string): Promise<string | undefined> {
    const key = this.stream(collection, id).slice(OWNER_STREAM_PREFIX.length);
    const known = this.assignments.get(key);
    if (known !== undefined) return known.workspace_id;
    await this.assignments.catchUp();
    return this.assignments.get(key)?.workspace_id;
  }

  async ownerOf(collection: string, id: string): Promise<string> {
    return (await this.recordedOwner(collection, id)) ?? DEFAULT_WORKSPACE;
  }

  /** Assigns a new resource to a workspace; the first assignment stands (a retry or a race changes nothing). */
  async assign(collection: string, id: string, workspaceId: string): Promise<void> {
    if (workspaceId === DEFAULT_WORKSPACE && !RECORDED_FOR_DEFAULT.has(collection)) return;
    try {
      await this.store.append(
        this.stream(collection, id),
        [{ type: RESOURCE_ASSIGNED_EVENT_TYPE, data: { collection, id, workspace_id: workspaceId } }],
        { expectedVersion: 'no_stream' },
      );
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }

  /** Keeps the items the request's caller may see (all of them when no guard ran, as in a host without one). */
  async visibleTo<T>(request: Request, collection: string, items: readonly T[], idOf: (item: T) => unknown): Promise<T[]> {
    const caller = callerOf(request);
    return caller ? this.visible(caller.workspaceId, collection, items, idOf) : [...items];
  }

  /** Keeps the items of a list that belong to the workspace. */
  async visible<T>(workspaceId: string, collection: string, items: readonly T[], idOf: (item: T) => unknown): Promise<T[]> {
    await this.assignments.catchUp();
    return items.filter((item) => {
      const id = idOf(item);
      return typeof id !== 'string' || (this.assignments.get(`${collection}-${id}`)?.workspace_id ?? DEFAULT_WORKSPACE) === workspaceId;
    });
  }
}
