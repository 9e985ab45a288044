import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AdvanceJourneysRequestV1, contractFor, rpcValidator, toIntegrationEvent, type LoggedSessionEvent } from '../index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const logged = (data: Record<string, unknown>): LoggedSessionEvent => ({
  id: 'evt_9',
  streamId: 'session-s1',
  offset: 7,
  position: 70,
  type: 'journey_transition',
  recordedAt: '2026-11-22T10:00:00.000Z',
  data: { session_id: 's1', source: 'system', correlation_id: 'c1', data },
});

describe('journey integration events', () => {
  it('publishes a logged journey_transition on tenet.v1.journey.<session>.<event>, valid against its schema, without the private context', () => {
    const published = toIntegrationEvent(
      logged({
        event: 'journey_transitioned',
        journey_id: 'returns',
        from: 'ask_order',
        to: 'ask_reason',
        cause: 'condition',
        condition: 'gave the order number',
        context: { order_number: 'A-1', email: 'x@y.z' },
        at: 1,
      }),
    )!;
    expect(published.subject).toBe('tenet.v1.journey.s1.transitioned');
    expect(published.payload).toEqual({
      id: 'evt_9',
      type: 'journey.transitioned',
      version: 1,
      stream: 'session-s1',
      offset: 7,
      position: 70,
      occurred_at: '2026-11-22T10:00:00.000Z',
      data: {
        session_id: 's1',
        journey_id: 'returns',
        correlation_id: 'c1',
        from: 'ask_order',
        to: 'ask_reason',
        cause: 'condition',
        condition: 'gave the order number',
      },
    });
    expect(ajv.compile(contractFor('journey.transitioned')!.schema)(published.payload)).toBe(true);
  });

  it.each([
    [
      { event: 'journey_activated', journey_id: 'returns', step: 'ask_order', resumed: true, sessionId: 's1', at: 1 },
      'tenet.v1.journey.s1.activated',
      'journey.activated',
    ],
    [{ event: 'journey_completed', journey_id: 'returns', step: 'confirm', at: 1 }, 'tenet.v1.journey.s1.completed', 'journey.completed'],
    [
      { event: 'journey_abandoned', journey_id: 'returns', step: 'ask_reason', reason: 'expired', at: 1 },
      'tenet.v1.journey.s1.abandoned',
      'journey.abandoned',
    ],
  ])('maps a logged %j', (data, subject, type) => {
    const published = toIntegrationEvent(logged(data))!;
    expect(published.subject).toBe(subject);
    expect(ajv.compile(contractFor(type)!.schema)(published.payload)).toBe(true);
  });

  it('keeps unknown journey event names private', () => {
    expect(toIntegrationEvent(logged({ event: 'journey_context_updated', journey_id: 'returns' }))).toBeUndefined();
  });

  it('the advance request contract names a broken field', () => {
    const validate = rpcValidator(AdvanceJourneysRequestV1);
    expect(() =>
      validate({
        session_id: 's1',
        correlation_id: 'c',
        now: 1,
        journeys: [],
        recorded: {},
        matched: ['bad id'],
        evaluated: {},
        context: {},
      }),
    ).toThrow(/\/matched\/0/);
  });
});
