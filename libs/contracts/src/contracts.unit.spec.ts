import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  allContracts,
  SESSION_MODE_CHANGED_EVENT_TYPE,
  sessionMetaStreamId,
  sessionStreamId,
  subjectFor,
  toIntegrationEvent,
  toSessionIntegrationEvent,
  toSessionModeChangedEvent,
  type LoggedSessionEvent,
} from './index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const logged = (type: string, data: Record<string, unknown>): LoggedSessionEvent => ({
  id: 'evt_1',
  streamId: sessionStreamId('s1'),
  offset: 4,
  position: 17,
  type,
  recordedAt: '2026-11-22T10:00:00.000Z',
  data: { session_id: 's1', source: 'customer', correlation_id: 'c1', data },
});

describe('integration event contracts', () => {
  it.each(allContracts.map((c) => [c.type, c] as const))('%s: the documented example validates against its schema', (_type, contract) => {
    const validate = ajv.compile(contract.schema);
    expect(validate(contract.example)).toBe(true);
  });

  it('every subject pattern is versioned under tenet.v1 and ends with the event name', () => {
    for (const contract of allContracts) {
      expect(contract.subjectPattern).toMatch(/^tenet\.v1\.[a-z_]+\.\{[a-z_]+\}\.[a-z_]+$/);
      expect(contract.subjectPattern.endsWith(contract.type.split('.')[1]!)).toBe(true);
    }
  });

  it('rejects a payload with a missing field and names it', () => {
    const contract = allContracts.find((c) => c.type === 'session.message_created')!;
    const validate = ajv.compile(contract.schema);
    const broken = structuredClone(contract.example) as { data: Record<string, unknown> };
    delete broken.data['message'];
    expect(validate(broken)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('message');
  });

  it('refuses ids that would break the subject grammar', () => {
    expect(() => subjectFor('session', 'a.b', 'message_created')).toThrow(/aggregate id "a.b"/);
    expect(() => subjectFor('session', 'a*', 'message_created')).toThrow(TypeError);
  });
});

describe('toSessionIntegrationEvent', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['message', 'message_created', { message: 'hi', participant: { display_name: 'Ann' } }],
    ['status', 'status_changed', { status: 'ready', data: { matched: ['g1'] } }],
    ['tool', 'tool_called', { tool_calls: [{ tool_id: 't', arguments: {}, result: { data: 1, metadata: {} } }] }],
    ['custom', 'custom_event_recorded', { anything: true }],
  ];

  it.each(cases)('maps a logged %s event to a schema-valid %s', (kind, eventName, data) => {
    const mapped = toSessionIntegrationEvent(logged(kind, data));
    expect(mapped?.subject).toBe(`tenet.v1.session.s1.${eventName}`);
    const contract = allContracts.find((c) => c.type === `session.${eventName}`)!;
    const validate = ajv.compile(contract.schema);
    expect(validate(mapped!.payload)).toBe(true);
    expect(mapped!.payload).toMatchObject({ id: 'evt_1', stream: 'session-s1', offset: 4, position: 17 });
  });

  it('ignores streams that are not sessions and unknown types', () => {
    expect(toSessionIntegrationEvent({ ...logged('message', {}), streamId: 'agent-1' })).toBeUndefined();
    expect(toSessionIntegrationEvent(logged('SessionExpired', {}))).toBeUndefined();
  });
});

describe('toSessionModeChangedEvent', () => {
  const data = { session_id: 's1', agent_id: 'a1', customer_id: 'guest', mode: 'manual', previous_mode: 'auto', reason: 'api' };
  const stored = (streamId: string, type: string) => ({
    id: 'evt_9',
    streamId,
    offset: 3,
    position: 40,
    type,
    data,
    recordedAt: '2026-11-23T10:00:00.000Z',
  });

  it('publishes a mode change of a session record on tenet.v1.session.<id>.mode_changed, valid against its contract', () => {
    const mapped = toIntegrationEvent(stored(sessionMetaStreamId('s1'), SESSION_MODE_CHANGED_EVENT_TYPE));
    expect(mapped?.subject).toBe('tenet.v1.session.s1.mode_changed');
    const validate = ajv.compile(allContracts.find((c) => c.type === 'session.mode_changed')!.schema);
    expect(validate(mapped?.payload)).toBe(true);
  });

  it('keeps every other session-record event private', () => {
    expect(toSessionModeChangedEvent(stored(sessionMetaStreamId('s1'), 'SessionEventsDeleted'))).toBeUndefined();
    expect(toIntegrationEvent(stored(sessionMetaStreamId('s1'), 'SessionEventPatched'))).toBeUndefined();
    expect(toIntegrationEvent(stored(sessionMetaStreamId('s1'), 'SessionUpdated'))).toBeUndefined();
    expect(toSessionModeChangedEvent(stored('agent-a1', SESSION_MODE_CHANGED_EVENT_TYPE))).toBeUndefined();
  });
});

describe('toSessionDeletionEvent', () => {
  const stored = (type: string, data: unknown) => ({
    id: 'evt_10',
    streamId: sessionMetaStreamId('s1'),
    offset: 5,
    position: 41,
    type,
    data,
    recordedAt: '2026-11-23T10:00:00.000Z',
  });
  const valid = (type: string, payload: unknown) => ajv.compile(allContracts.find((c) => c.type === type)!.schema)(payload);

  it('publishes a session tombstone as session.deleted, naming the session from its stream when an older tombstone has no data', () => {
    const mapped = toIntegrationEvent(stored('SessionDeleted', { session_id: 's1', agent_id: 'a1', customer_id: 'guest' }));
    expect(mapped).toMatchObject({
      subject: 'tenet.v1.session.s1.deleted',
      payload: { type: 'session.deleted', version: 1, data: { session_id: 's1', agent_id: 'a1', customer_id: 'guest' } },
    });
    expect(valid('session.deleted', mapped?.payload)).toBe(true);
    const older = toIntegrationEvent(stored('SessionDeleted', {}));
    expect(older?.payload).toMatchObject({ data: { session_id: 's1' } });
    expect(valid('session.deleted', older?.payload)).toBe(true);
  });

  it('publishes deleted events as session.events_deleted with the hidden range', () => {
    const mapped = toIntegrationEvent(stored('SessionEventsDeleted', { min_offset: 2, before_offset: 7 }));
    expect(mapped).toMatchObject({
      subject: 'tenet.v1.session.s1.events_deleted',
      payload: { type: 'session.events_deleted', data: { session_id: 's1', min_offset: 2, before_offset: 7 } },
    });
    expect(valid('session.events_deleted', mapped?.payload)).toBe(true);
  });
});
