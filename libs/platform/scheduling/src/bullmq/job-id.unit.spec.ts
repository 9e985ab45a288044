import { fromBullJobId, toBullJobId, toBullJobInstanceId } from './job-id.js';

describe('BullMQ job id encoding', () => {
  const ids = [
    'idle:session-1',
    'ttl:a:b:c',
    '12345',
    '0',
    '0:x',
    '-7',
    '100%',
    '%3A',
    '%253A:%',
    'a.b',
    '.',
    '%2E.',
    'plain',
    'j_already-prefixed',
    'ünïcødé:☃',
  ];

  it.each(ids)('round-trips %p', (id) => {
    expect(fromBullJobId(toBullJobId(id))).toBe(id);
  });

  it.each(ids)('produces an id BullMQ accepts for %p (no ":", not an integer, not "0")', (id) => {
    const encoded = toBullJobId(id);
    expect(encoded).not.toContain(':');
    expect(`${parseInt(encoded, 10)}`).not.toBe(encoded);
    expect(encoded).not.toBe('0');
  });

  it('keeps distinct ids distinct', () => {
    expect(new Set(ids.map(toBullJobId)).size).toBe(ids.length);
  });

  it.each(ids)('reads the caller id %p back from the job id of one schedule call', (id) => {
    const instance = toBullJobInstanceId(id, 'f3c1a2b4-0000-4000-8000-000000000001');
    expect(instance).not.toContain(':');
    expect(fromBullJobId(instance)).toBe(id);
  });

  it('gives each schedule call of one id its own job id', () => {
    expect(toBullJobInstanceId('idle:s1', 'a')).not.toBe(toBullJobInstanceId('idle:s1', 'b'));
  });

  it('leaves ids it did not encode untouched', () => {
    expect(fromBullJobId('foreign-id')).toBe('foreign-id');
  });
});
