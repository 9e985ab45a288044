import { mergedFacts, normalizedFacts, scalarFieldValues, typedValue } from './extracted-values.js';

describe('extracted values', () => {
  it("reads extracted text as the variable's data_type, or refuses it", () => {
    expect(typedValue({ data_type: 'Number' }, '1,200')).toBe(1200);
    expect(typedValue({ data_type: 'Number' }, 'twelve')).toBeUndefined();
    expect(typedValue({ data_type: 'Boolean' }, 'Yes')).toBe(true);
    expect(typedValue({ data_type: 'Array' }, '["a"]')).toEqual(['a']);
    expect(typedValue({ data_type: 'Object' }, '["a"]')).toBeUndefined();
    expect(typedValue({}, ' 55555 ')).toBe('55555');
  });

  it('normalises facts as stored: trimmed, snake_case predicate, confidence within 0..1, empty ones dropped', () => {
    expect(
      normalizedFacts([
        { subject: ' Ada ', predicate: 'Prefers Contact By', object: ' email ', confidence: 1.4 },
        { subject: 'Ada', predicate: ' ', object: 'x', confidence: 0.5 },
      ]),
    ).toEqual([{ subject: 'Ada', predicate: 'prefers_contact_by', object: 'email', confidence: 1 }]);
  });

  it("merges this message's facts over recalled ones with the same subject and predicate (case-insensitive)", () => {
    const recalled = [
      { subject: 'ada', predicate: 'city', object: 'Paris', confidence: 0.9 },
      { subject: 'Ada', predicate: 'pet', object: 'cat', confidence: 0.8 },
    ];
    expect(mergedFacts([{ subject: 'Ada', predicate: 'City', object: 'Lyon', confidence: 0.7 }], recalled)).toEqual([
      { subject: 'Ada', predicate: 'City', object: 'Lyon', confidence: 0.7 },
      { subject: 'Ada', predicate: 'pet', object: 'cat', confidence: 0.8 },
    ]);
  });

  it('offers scalar values as template fields', () => {
    expect(scalarFieldValues({ a: 'x', b: 2, c: true, d: { e: 1 }, f: null })).toEqual({ a: 'x', b: '2', c: 'true' });
  });
});
