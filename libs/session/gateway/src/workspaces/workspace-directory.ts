import { Inject, Injectable } from '@nestjs/common';
import { OWNER_STREAM_PREFIX, RESOURCE_ASSIGNED_EVENT_TYPE, ownerStreamId, type ResourceAssignedData } from '@tenet/contracts';
import { ConcurrencyError, type EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { DEFAULT_WORKSPACE } from '../auth/credentials.repository.js';
import { StreamCatalog } from '../catalog/stream-catalog.js';

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
]);

/** Body and query fields that reference a resource of another collection. */
export const REFERENCE_FIELDS: Record<string, string> = { agent_id: 'agents', customer_id: 'customers' };

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

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    // The event-log relay reads the same index to publish each event under its workspace (EventWorkspaces).
    this.assignments = new StreamCatalog(store, OWNER_STREAM_PREFIX, (current, event) => current ?? (event.type === RESOURCE_ASSIGNED_EVENT_TYPE ? (event.data as ResourceAssignedData) : undefined));
  }

  private stream = ownerStreamId;

  /** The workspace the resource was assigned to, or undefined when it never was (then it is `default`'s). */
  async recordedOwner(collection: string, id: string): Promise<string | undefined> {
    await this.assignments.catchUp();
    return this.assignments.get(this.stream(collection, id).slice(OWNER_STREAM_PREFIX.length))?.workspace_id;
  }

  async ownerOf(collection: string, id: string): Promise<string> {
    return (await this.recordedOwner(collection, id)) ?? DEFAULT_WORKSPACE;
  }

  /** Assigns a new resource to a workspace; the first assignment stands (a retry or a race changes nothing). */
  async assign(collection: string, id: string, workspaceId: string): Promise<void> {
    if (workspaceId === DEFAULT_WORKSPACE) return;
    try {
      await this.store.append(this.stream(collection, id), [{ type: RESOURCE_ASSIGNED_EVENT_TYPE, data: { collection, id, workspace_id: workspaceId } }], { expectedVersion: 'no_stream' });
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
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
