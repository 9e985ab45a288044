import type { TObject } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import type { IntegrationEventContract } from '../envelope.js';
import { SUBJECT_ROOT, subjectToken } from '../subjects.js';

/**
 * Major 2 of the published events (ADR 0018): the same events as v1, with the owning workspace as the subject's
 * second token — `tenet.v2.<workspace>.<context>.<aggregate id>.<event name>` — so a NATS user can be permitted one
 * workspace's subjects (`tenet.v2.acme.>`) and nothing else. Inserting a token breaks every v1 filter, hence a new
 * major in its own stream, published beside v1 by the same relay for the deprecation window.
 */
export const TENET_STREAM_V2 = 'TENET_V2';
export const SUBJECT_ROOT_V2 = 'tenet.v2';
export const ALL_V2_SUBJECTS = `${SUBJECT_ROOT_V2}.>`;

/** Where everything created before workspaces existed (or by the open embedded mode) belongs. */
export const DEFAULT_WORKSPACE = 'default';

/** Workspace ids as API keys accept them; every one is a valid subject token. */
export const WORKSPACE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,47}$/;

/** Every v2 subject of one workspace: what a workspace's NATS user may subscribe to. */
export const workspaceSubjects = (workspaceId: string): string => `${SUBJECT_ROOT_V2}.${subjectToken(workspaceId, 'workspace id')}.>`;

/**
 * The ownership index (ADR 0018): `owner-<collection>-<id>` holds one `ResourceAssigned { collection, id,
 * workspace_id }` for a resource a workspace created. No stream means the resource is `default`'s.
 */
export const OWNER_STREAM_PREFIX = 'owner-';
export const RESOURCE_ASSIGNED_EVENT_TYPE = 'ResourceAssigned';
export const ownerStreamId = (collection: string, id: string): string => `${OWNER_STREAM_PREFIX}${collection}-${id}`;
export interface ResourceAssignedData {
  collection: string;
  id: string;
  workspace_id: string;
}

/**
 * The resource whose owner is the event's workspace. Session, journey and tool events belong to their session,
 * usage and budget events to their agent, memory events to the session they came from when they name one, else
 * to their customer. A session's workspace is its agent's at opening (the gateway admits a session of a
 * workspace only for an agent of that workspace, so that agent's assignment precedes the session in the log).
 */
export type WorkspaceAnchor = { collection: 'sessions' | 'agents' | 'customers'; id: string };

const CONTEXT_ANCHORS: Record<string, WorkspaceAnchor['collection']> = {
  session: 'sessions',
  journey: 'sessions',
  tool: 'sessions',
  metering: 'agents',
  budget: 'agents',
  intent: 'agents',
  memory: 'customers',
};

export function workspaceAnchorOf(published: { subject: string; payload: unknown }): WorkspaceAnchor | undefined {
  const [, , context, aggregateId] = published.subject.split('.');
  const collection = context === undefined ? undefined : CONTEXT_ANCHORS[context];
  if (collection === undefined || aggregateId === undefined) return undefined;
  if (collection === 'customers') {
    const data = (published.payload as { data?: { sessionId?: unknown; source?: { sessionId?: unknown } } }).data;
    const sessionId = data?.sessionId ?? data?.source?.sessionId;
    if (typeof sessionId === 'string' && sessionId.length > 0) return { collection: 'sessions', id: sessionId };
  }
  return { collection, id: aggregateId };
}

/** The v2 twin of a published v1 event: the workspace in the subject and in the envelope, `version: 2`. */
export function toWorkspaceEvent(
  published: { subject: string; payload: unknown },
  workspaceId: string,
): { subject: string; payload: unknown } {
  if (!published.subject.startsWith(`${SUBJECT_ROOT}.`)) throw new TypeError(`"${published.subject}" is not a ${SUBJECT_ROOT} subject`);
  return {
    subject: `${SUBJECT_ROOT_V2}.${subjectToken(workspaceId, 'workspace id')}.${published.subject.slice(SUBJECT_ROOT.length + 1)}`,
    payload: { ...(published.payload as Record<string, unknown>), version: 2, workspace_id: workspaceId },
  };
}

/** The v2 contract of a v1 one, for docs/events.md and the schema files. */
export function workspaceContract(v1: IntegrationEventContract): IntegrationEventContract {
  const properties = (v1.schema as TObject).properties;
  const schema = Type.Object(
    {
      ...properties,
      version: Type.Literal(2),
      workspace_id: Type.String({
        pattern: WORKSPACE_ID_PATTERN.source,
        description: "The workspace the event belongs to; also the subject's second token",
      }),
    },
    { additionalProperties: false },
  );
  return {
    type: v1.type,
    description: v1.description,
    subjectPattern: v1.subjectPattern.replace(`${SUBJECT_ROOT}.`, `${SUBJECT_ROOT_V2}.{workspace_id}.`),
    schema,
    example: { ...(v1.example as Record<string, unknown>), version: 2, workspace_id: 'acme' },
  };
}
