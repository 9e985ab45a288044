import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  allContracts,
  allV2Contracts,
  sessionStreamId,
  toIntegrationEvent,
  toWorkspaceEvent,
  workspaceAnchorOf,
  workspaceSubjects,
} from '../index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const message = {
  id: 'evt_1',
  streamId: sessionStreamId('s1'),
  offset: 4,
  position: 17,
  type: 'message',
  recordedAt: '2026-11-22T10:00:00.000Z',
  data: { session_id: 's1', source: 'customer', correlation_id: 'c1', data: { message: 'hi', participant: { display_name: 'Ann' } } },
};

describe('workspace events (v2)', () => {
  it.each(allV2Contracts.map((c) => [c.type, c] as const))('%s: the v2 example validates, and a v1 payload does not', (type, contract) => {
    const validate = ajv.compile(contract.schema);
    expect(validate(contract.example)).toBe(true);
    expect(validate(allContracts.find((c) => c.type === type)!.example)).toBe(false);
    expect(contract.subjectPattern).toMatch(/^tenet\.v2\.\{workspace_id\}\.[a-z_]+\.\{[a-z_]+\}\.[a-z_]+$/);
  });

  it('is the v1 event with the workspace in the subject and the envelope, data unchanged', () => {
    const v1 = toIntegrationEvent(message)!;
    const v2 = toWorkspaceEvent(v1, 'acme');
    expect(v2.subject).toBe('tenet.v2.acme.session.s1.message_created');
    expect(v2.payload).toEqual({ ...(v1.payload as object), version: 2, workspace_id: 'acme' });
    expect(ajv.compile(allV2Contracts.find((c) => c.type === 'session.message_created')!.schema)(v2.payload)).toBe(true);
  });

  it('refuses a workspace id that is not a subject token', () => {
    const v1 = toIntegrationEvent(message)!;
    expect(() => toWorkspaceEvent(v1, 'ac.me')).toThrow(/workspace id "ac.me" cannot be a subject token/);
    expect(() => workspaceSubjects('*')).toThrow(/workspace id/);
    expect(workspaceSubjects('acme')).toBe('tenet.v2.acme.>');
  });

  it('anchors session, journey and tool events at the session, usage and budget at the agent, memory at its session or customer', () => {
    const at = (subject: string, data: unknown = {}) => workspaceAnchorOf({ subject, payload: { data } });
    expect(at('tenet.v1.session.s1.message_created')).toEqual({ collection: 'sessions', id: 's1' });
    expect(at('tenet.v1.journey.s1.activated')).toEqual({ collection: 'sessions', id: 's1' });
    expect(at('tenet.v1.tool.s1.invocation_failed')).toEqual({ collection: 'sessions', id: 's1' });
    expect(at('tenet.v1.metering.a1.llm_usage_recorded')).toEqual({ collection: 'agents', id: 'a1' });
    expect(at('tenet.v1.budget.a1.budget_exceeded')).toEqual({ collection: 'agents', id: 'a1' });
    expect(at('tenet.v1.memory.c1.facts_extracted', { sessionId: 's9' })).toEqual({ collection: 'sessions', id: 's9' });
    expect(at('tenet.v1.memory.c1.fact_recorded', { source: { kind: 'conversation', sessionId: 's8' } })).toEqual({
      collection: 'sessions',
      id: 's8',
    });
    expect(at('tenet.v1.memory.c1.fact_recorded', { source: { kind: 'operator' } })).toEqual({ collection: 'customers', id: 'c1' });
    expect(at('tenet.v1.unknown.x.y')).toBeUndefined();
  });

  it('has an anchor for every published context', () => {
    for (const contract of allContracts)
      expect(workspaceAnchorOf({ subject: contract.subjectPattern, payload: contract.example })).toBeDefined();
  });
});
