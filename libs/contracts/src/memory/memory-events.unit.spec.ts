import { FactRecordedV1, FactsExtractedV1, rpcValidator, toIntegrationEvent, VariableUpdateV1 } from '../index.js';

describe('memory integration events', () => {
  const logged = (type: string, data: unknown, streamId = 'customer-memory:cust_42') => ({
    id: 'e1',
    streamId,
    offset: 0,
    position: 7,
    type,
    data,
    recordedAt: '2026-11-23T10:00:00.000Z',
  });

  it('publishes a customer memory event on tenet.v1.memory.<customer>.<name>, valid against its schema', () => {
    const data = {
      factId: 'f1',
      customerId: 'cust_42',
      subject: 'customer',
      predicate: 'lives_in',
      object: 'Lyon',
      confidence: 0.9,
      source: { kind: 'operator' },
      recordedAt: 1,
    };
    const routed = toIntegrationEvent(logged('FactRecorded', data));
    expect(routed?.subject).toBe('tenet.v1.memory.cust_42.fact_recorded');
    expect(() => rpcValidator(FactRecordedV1)(routed?.payload)).not.toThrow();
    expect(toIntegrationEvent(logged('FactForgotten', { factId: 'f1', customerId: 'cust_42', at: 2 }))?.subject).toBe(
      'tenet.v1.memory.cust_42.fact_forgotten',
    );
  });

  it('keeps other streams and unknown types private', () => {
    expect(toIntegrationEvent(logged('FactRecorded', {}, 'usage-x'))).toBeUndefined();
    expect(toIntegrationEvent(logged('SomethingElse', {}))).toBeUndefined();
  });
});

describe('extraction integration events', () => {
  const logged = (type: string, data: unknown, streamId = 'context-extraction:cust_42') => ({
    id: 'e1',
    streamId,
    offset: 0,
    position: 7,
    type,
    data,
    recordedAt: '2026-11-23T10:00:00.000Z',
  });

  it('publishes variable_update and facts_extracted on tenet.v1.memory.<customer>, valid against their schemas', () => {
    const update = toIntegrationEvent(
      logged('VariableUpdated', {
        customerId: 'cust_42',
        sessionId: 's1',
        variableId: 'v1',
        name: 'email',
        value: 'a@b.example',
        confidence: 0.9,
        sourceMessageId: 'm1',
        extractedAt: '2026-11-23T10:00:00.000Z',
      }),
    );
    expect(update?.subject).toBe('tenet.v1.memory.cust_42.variable_update');
    expect(() => rpcValidator(VariableUpdateV1)(update?.payload)).not.toThrow();
    const facts = toIntegrationEvent(
      logged('FactsExtracted', {
        customerId: 'cust_42',
        sessionId: 's1',
        sourceMessageId: 'm1',
        extractedAt: '2026-11-23T10:00:00.000Z',
        facts: [{ factId: 'x-m1-0', subject: 'customer', predicate: 'name', object: 'Alice', confidence: 0.8 }],
      }),
    );
    expect(facts?.subject).toBe('tenet.v1.memory.cust_42.facts_extracted');
    expect(() => rpcValidator(FactsExtractedV1)(facts?.payload)).not.toThrow();
    expect(toIntegrationEvent(logged('VariableUpdated', {}, 'customer-memory:cust_42'))).toBeUndefined();
  });
});
