import {
  DEFAULT_WORKSPACE,
  OWNER_STREAM_PREFIX,
  RESOURCE_ASSIGNED_EVENT_TYPE,
  sessionMetaStreamId,
  toIntegrationEvent,
  toWorkspaceEvent,
  WORKSPACE_ID_PATTERN,
  workspaceAnchorOf,
  type ResourceAssignedData,
  type WorkspaceAnchor,
} from '@tenet/contracts';
import type { EventRoute, EventStore, StoredEvent } from '@tenet/event-store';
import { LRUCache } from 'lru-cache';

/** Owner events per catch-up read. */
const OWNERS_PAGE = 1_000;
/** Sessions whose agent is remembered; a miss costs one indexed read of the session's first event. */
const SESSIONS_CACHED = 20_000;

/**
 * Which workspace a published event belongs to (ADR 0018), resolved by the relay from the event log itself, so
 * every process resolves alike and a restart changes nothing: the owner of its anchor (`workspaceAnchorOf`) in the
 * ownership index (`owner-<collection>-<id>` streams), and for a session the owner of the agent it was opened with.
 * A resource with no assignment is `default`'s (the migration rule).
 *
 * Correct because of the order the gateway enforces: a non-default workspace can open a session only for an agent
 * already assigned to it, and a session's events, usage and budget events come after its opening — so an event's
 * owning assignment is always at a lower position in the log than the event. `resolve` therefore reads the
 * ownership index up to at least the event's position before answering.
 */
export class EventWorkspaces {
  private readonly owners = new Map<string, string>();
  private ownersPosition = 0;
  /** Every assignment below this position is in `owners`. */
  private coveredUpTo = 0;
  /** The highest event position asked about: a catch-up that starts after the ask covers it. */
  private asked = 0;
  private catchingUp: Promise<void> | undefined;
  /** Session id → the agent it was opened with (never changes). */
  private readonly sessionAgents = new LRUCache<string, string>({ max: SESSIONS_CACHED });
  /** Lookups under way: a window's events of one session share one read. */
  private readonly lookingUp = new Map<string, Promise<string | undefined>>();

  constructor(private readonly store: EventStore) {}

  /** The workspace of an event at `position` anchored at `anchor`. */
  async resolve(anchor: WorkspaceAnchor, position: number): Promise<string> {
    this.asked = Math.max(this.asked, position);
    while (this.coveredUpTo < position) await this.catchUp();
    if (anchor.collection !== 'sessions') return this.ownerOf(anchor.collection, anchor.id);
    const agentId = await this.agentOfSession(anchor.id);
    return agentId === undefined ? DEFAULT_WORKSPACE : this.ownerOf('agents', agentId);
  }

  private ownerOf(collection: string, id: string): string {
    return this.owners.get(`${collection}-${id}`) ?? DEFAULT_WORKSPACE;
  }

  private agentOfSession(sessionId: string): Promise<string | undefined> {
    const known = this.sessionAgents.get(sessionId);
    if (known !== undefined) return Promise.resolve(known);
    let lookup = this.lookingUp.get(sessionId);
    if (!lookup) {
      lookup = (async () => {
        try {
          const [opened] = await this.store.readStream(sessionMetaStreamId(sessionId), { types: ['SessionOpened'], limit: 1 });
          const agentId = (opened?.data as { agent_id?: unknown } | undefined)?.agent_id;
          if (typeof agentId !== 'string') return undefined;
          this.sessionAgents.set(sessionId, agentId);
          return agentId;
        } finally {
          this.lookingUp.delete(sessionId);
        }
      })();
      this.lookingUp.set(sessionId, lookup);
    }
    return lookup;
  }

  /** Reads the ownership index to the end of the log; concurrent callers share one read. */
  private catchUp(): Promise<void> {
    this.catchingUp ??= (async () => {
      try {
        // The caller read its event from the log before asking, and the log exposes only gap-free prefixes (the relay
        // relies on it too): a read that begins now sees every assignment below the positions asked so far.
        const covers = this.asked;
        for (;;) {
          const events = await this.store.readAll({
            afterPosition: this.ownersPosition,
            limit: OWNERS_PAGE,
            category: OWNER_STREAM_PREFIX,
          });
          for (const event of events) {
            if (event.type !== RESOURCE_ASSIGNED_EVENT_TYPE) continue;
            const { collection, id, workspace_id } = event.data as ResourceAssignedData;
            // The first assignment stands, as in the gateway's directory.
            if (!this.owners.has(`${collection}-${id}`)) this.owners.set(`${collection}-${id}`, workspace_id);
          }
          const last = events.at(-1);
          if (last) this.ownersPosition = last.position;
          if (events.length < OWNERS_PAGE) break;
        }
        this.coveredUpTo = Math.max(this.coveredUpTo, covers);
      } finally {
        this.catchingUp = undefined;
      }
    })();
    return this.catchingUp;
  }
}

/** The relay's route: every published event as v1, and as v2 under its workspace, for v1's deprecation window (ADR 0018). */
export function publishedEvents(workspaces: EventWorkspaces): EventRoute {
  return async (event) => {
    const v1 = toIntegrationEvent(event);
    if (!v1) return undefined;
    return [v1, toWorkspaceEvent(v1, await workspaceOf(workspaces, event, v1))];
  };
}

/**
 * A workspace stamped by the appender (`metadata.workspace_id`: the tool executor and the memory store append to
 * logs of their own, without the ownership index) wins; otherwise it is resolved from the log.
 */
async function workspaceOf(
  workspaces: EventWorkspaces,
  event: StoredEvent,
  published: { subject: string; payload: unknown },
): Promise<string> {
  const stamped = event.metadata?.['workspace_id'];
  if (typeof stamped === 'string' && WORKSPACE_ID_PATTERN.test(stamped)) return stamped;
  const anchor = workspaceAnchorOf(published);
  return anchor ? workspaces.resolve(anchor, event.position) : DEFAULT_WORKSPACE;
}
