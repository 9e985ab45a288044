import { mongoLogName, relayLeaseScope } from './relay-leadership.js';

describe('relay lease scope', () => {
  const base = { log: 'sqlite:/data/gateway/events.sqlite', checkpointName: 'tenet.v1.relay' };

  it('gives every process on one log the same KV key and kick subject, and other logs other ones', () => {
    const scope = relayLeaseScope(base);
    expect(scope).toEqual(relayLeaseScope({ ...base }));
    expect(scope.key).toMatch(/^relay\.[0-9a-f]{32}$/);
    expect(scope.kickSubject).toBe(`tenet.relay.${scope.key.slice('relay.'.length)}.kick`);
    expect(scope.kickSubject.startsWith('tenet.v1.')).toBe(false); // never captured by the TENET_V1 stream
    const others = [
      relayLeaseScope({ ...base, log: 'sqlite:/data/metering/events.sqlite' }),
      relayLeaseScope({ ...base, checkpointName: 'other.relay' }),
      relayLeaseScope({ ...base, namespace: 'staging' }),
    ];
    expect(new Set([scope.key, ...others.map((o) => o.key)]).size).toBe(4);
  });

  it('names a MongoDB log by hosts and database only, so credentials and options do not split the lease', () => {
    expect(mongoLogName('mongodb://user:secret@mongo:27017/tenet?replicaSet=rs0', 'tenet')).toBe('mongodb:mongo:27017/tenet');
    expect(mongoLogName('mongodb://mongo:27017/tenet?replicaSet=rs0&w=majority', 'tenet')).toBe('mongodb:mongo:27017/tenet');
  });
});
