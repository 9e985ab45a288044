import { fromBullJobId, toBullJobId } from './job-id.js';

describe('BullMQ job id encoding', () => {
  const ids = ['idle:session-1', 'ttl:a:b:c', '12345', '0', '0:x', '-7', '100%', '%3A', '%253A:%', 'plain', 'j_already-prefixed', 'ünïcødé:☃'];

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

  it('leaves ids it did not encode untouched', () => {
    expect(fromBullJobId('foreign-id')).toBe('foreign-id');
  });
});
