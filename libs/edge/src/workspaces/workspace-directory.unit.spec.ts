import { InMemoryEventStore, type EventStore } from '@tenet/event-store';
import { REFERENCE_PATHS, REFERENCE_STEPS, valuesAt, WorkspaceDirectory } from './workspace-directory.js';

/** Counts the directory's reads of the log. */
function counting(store: EventStore): { store: EventStore; reads: () => number } {
  let reads = 0;
  const counted = Object.create(store) as EventStore;
  counted.readAll = (options) => {
    reads += 1;
    return store.readAll(options);
  };
  return { store: counted, reads: () => reads };
}

describe('WorkspaceDirectory', () => {
  it('answers an assignment it has read without reading the log again; an unassigned resource is looked up each time', async () => {
    const log = new InMemoryEventStore();
    const { store, reads } = counting(log);
    const directory = new WorkspaceDirectory(store);
    await directory.assign('sessions', 's-1', 'ws-a');

    expect(await directory.recordedOwner('sessions', 's-1')).toBe('ws-a');
    const afterFirst = reads();
    expect(await directory.ownerOf('sessions', 's-1')).toBe('ws-a');
    expect(reads()).toBe(afterFirst);

    expect(await directory.recordedOwner('sessions', 's-2')).toBeUndefined();
    expect(await directory.recordedOwner('sessions', 's-2')).toBeUndefined();
    expect(reads()).toBe(afterFirst + 2);
  });

  it('sees an assignment another replica wrote after it had found the resource unassigned, and the first assignment stands', async () => {
    const log = new InMemoryEventStore();
    const here = new WorkspaceDirectory(log);
    const elsewhere = new WorkspaceDirectory(log);

    expect(await here.ownerOf('sessions', 's-1')).toBe('default');
    await elsewhere.assign('sessions', 's-1', 'ws-b');
    expect(await here.ownerOf('sessions', 's-1')).toBe('ws-b');

    await here.assign('sessions', 's-1', 'ws-c');
    expect(await here.ownerOf('sessions', 's-1')).toBe('ws-b');
    expect(await new WorkspaceDirectory(log).ownerOf('sessions', 's-1')).toBe('ws-b');
  });
});

describe('valuesAt', () => {
  const body = {
    agent_id: 'a-1',
    tags: { add: ['agent:a-2', 7, 't-1'] },
    tools: [{ service_name: 'svc-1' }, { service_name: 3 }, 'x'],
    payloads: [{ guideline: { updated_id: 'g-1' } }],
  };

  it('finds the strings at a dotted path, through arrays with *, the same whether the path comes split or not', () => {
    expect(valuesAt(body, 'agent_id')).toEqual(['a-1']);
    expect(valuesAt(body, 'tags.add')).toEqual(['agent:a-2', 't-1']);
    expect(valuesAt(body, 'tools.*.service_name')).toEqual(['svc-1']);
    expect(valuesAt(body, 'payloads.*.guideline.updated_id')).toEqual(['g-1']);
    REFERENCE_PATHS.forEach(([path], index) => expect(valuesAt(body, REFERENCE_STEPS[index]![0])).toEqual(valuesAt(body, path)));
  });

  it('finds nothing in a root that is not an object or lacks the first step', () => {
    for (const root of [undefined, null, 'agent_id', ['a-1'], {}, { tag_id: 1 }]) expect(valuesAt(root, 'agent_id')).toEqual([]);
    expect(valuesAt({ tags: 'agent:x' }, 'tags.add')).toEqual([]);
  });
});
