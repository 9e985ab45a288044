import { jest } from '@jest/globals';
import {
  ownerStreamId,
  RESOURCE_ASSIGNED_EVENT_TYPE,
  sessionMetaStreamId,
  TOOL_INVOCATION_COMPLETED,
  toolStreamId,
} from '@tenet/contracts';
import { InMemoryEventStore } from '@tenet/event-store';
import { EventWorkspaces, publishedEvents } from './event-workspaces.js';

const assign = (store: InMemoryEventStore, collection: string, id: string, workspace: string) =>
  store.append(ownerStreamId(collection, id), [{ type: RESOURCE_ASSIGNED_EVENT_TYPE, data: { collection, id, workspace_id: workspace } }]);
const open = (store: InMemoryEventStore, session: string, agent: string) =>
  store.append(sessionMetaStreamId(session), [{ type: 'SessionOpened', data: { id: session, agent_id: agent } }]);
const head = async (store: InMemoryEventStore): Promise<number> => (await store.readAll()).at(-1)?.position ?? 0;

describe('EventWorkspaces (the workspace of a published event, from the log)', () => {
  it("a session's events belong to its agent's workspace at opening; agents and customers to their own; the rest to default", async () => {
    const store = new InMemoryEventStore();
    await assign(store, 'agents', 'a1', 'acme');
    await assign(store, 'customers', 'c1', 'globex');
    await open(store, 's1', 'a1');
    await open(store, 's2', 'legacy-agent');
    const workspaces = new EventWorkspaces(store);
    const at = await head(store);
    expect(await workspaces.resolve({ collection: 'sessions', id: 's1' }, at)).toBe('acme');
    expect(await workspaces.resolve({ collection: 'sessions', id: 's2' }, at)).toBe('default');
    expect(await workspaces.resolve({ collection: 'sessions', id: 'never-opened' }, at)).toBe('default');
    expect(await workspaces.resolve({ collection: 'agents', id: 'a1' }, at)).toBe('acme');
    expect(await workspaces.resolve({ collection: 'customers', id: 'c1' }, at)).toBe('globex');
    expect(await workspaces.resolve({ collection: 'customers', id: 'c2' }, at)).toBe('default');
  });

  it('reads assignments appended after its last read before answering for a later event, and the first assignment stands', async () => {
    const store = new InMemoryEventStore();
    const workspaces = new EventWorkspaces(store);
    expect(await workspaces.resolve({ collection: 'agents', id: 'a1' }, 0)).toBe('default');
    await assign(store, 'agents', 'a1', 'acme');
    await assign(store, 'agents', 'a1', 'globex');
    await open(store, 's1', 'a1');
    expect(await workspaces.resolve({ collection: 'sessions', id: 's1' }, await head(store))).toBe('acme');
    // A fresh resolver (another process, or after a restart) answers alike.
    expect(await new EventWorkspaces(store).resolve({ collection: 'sessions', id: 's1' }, await head(store))).toBe('acme');
  });

  it('concurrent lookups share one read of the ownership index', async () => {
    const store = new InMemoryEventStore();
    await assign(store, 'agents', 'a1', 'acme');
    const at = await head(store);
    const reads = jest.spyOn(store, 'readAll');
    const workspaces = new EventWorkspaces(store);
    await Promise.all(Array.from({ length: 20 }, () => workspaces.resolve({ collection: 'agents', id: 'a1' }, at)));
    expect(reads).toHaveBeenCalledTimes(1);
    await workspaces.resolve({ collection: 'agents', id: 'a1' }, at);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe('publishedEvents (the relay route)', () => {
  it('publishes v1 and v2; a workspace stamped by the appender (a log without the ownership index) wins over resolution', async () => {
    const store = new InMemoryEventStore();
    await assign(store, 'agents', 'a1', 'acme');
    await open(store, 's1', 'a1');
    const invocation = {
      invocation_id: 'k1',
      session_id: 's1',
      trace_id: 't1',
      agent_id: 'a1',
      tool_id: 'svc:t',
      service_name: 'svc',
      tool_name: 't',
      parameters: {},
      result: { data: 1, metadata: {}, control: {} },
      attempts: 1,
      duration_ms: 3,
      started_at: '2026-11-26T10:00:00.000Z',
    };
    await store.append(toolStreamId('s1'), [{ type: TOOL_INVOCATION_COMPLETED, data: invocation }]);
    await store.append(toolStreamId('s2'), [
      { type: TOOL_INVOCATION_COMPLETED, data: { ...invocation, session_id: 's2' }, metadata: { workspace_id: 'globex' } },
    ]);
    await store.append(toolStreamId('s3'), [
      { type: TOOL_INVOCATION_COMPLETED, data: { ...invocation, session_id: 's3' }, metadata: { workspace_id: 'Not A Workspace!' } },
    ]);
    const route = publishedEvents(new EventWorkspaces(store));
    const subjects = [];
    for (const event of await store.readAll()) {
      const targets = await route(event);
      if (Array.isArray(targets)) subjects.push(...targets.map((t: { subject: string }) => t.subject));
    }
    expect(subjects).toEqual([
      'tenet.v1.tool.s1.invocation_completed',
      'tenet.v2.acme.tool.s1.invocation_completed',
      'tenet.v1.tool.s2.invocation_completed',
      'tenet.v2.globex.tool.s2.invocation_completed',
      'tenet.v1.tool.s3.invocation_completed',
      'tenet.v2.default.tool.s3.invocation_completed',
    ]);
  });
});
