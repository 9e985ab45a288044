import { Type as TypeBox } from '@sinclair/typebox';
import { Type } from './schema-builder.js';
import { allContracts, allV2Contracts } from './registry.js';

/** Every own key (symbols too) in order, recursively: what "the same schema object" means here. */
const shape = (value: unknown): unknown =>
  typeof value === 'object' && value !== null
    ? Reflect.ownKeys(value).map((key) => [
        typeof key === 'symbol' ? key.toString() : key,
        shape((value as Record<string | symbol, unknown>)[key]),
      ])
    : value;

describe("the contracts' schema builder", () => {
  const cases: [string, (t: typeof TypeBox) => unknown][] = [
    ['String', (t) => t.String()],
    ['String with options', (t) => t.String({ minLength: 1, description: 'an id', format: 'date-time' })],
    ['Number', (t) => t.Number({ minimum: 0 })],
    ['Integer', (t) => t.Integer({ minimum: 1, maximum: 10 })],
    ['Boolean', (t) => t.Boolean()],
    ['Null', (t) => t.Null()],
    ['Unknown', (t) => t.Unknown({ description: 'anything' })],
    ['Literal string', (t) => t.Literal('session.created')],
    ['Literal number', (t) => t.Literal(1, { description: 'v1' })],
    ['Literal boolean', (t) => t.Literal(true)],
    ['Array', (t) => t.Array(t.String(), { maxItems: 3 })],
    ['Optional', (t) => t.Optional(t.String({ minLength: 1 }))],
    ['Object, all required', (t) => t.Object({ a: t.String(), b: t.Integer() }, { additionalProperties: false })],
    ['Object, some optional', (t) => t.Object({ a: t.Optional(t.String()), b: t.Array(t.Number()) })],
    ['Object, none required', (t) => t.Object({ a: t.Optional(t.String()) })],
    ['Union of none', (t) => t.Union([])],
    ['Union of one', (t) => t.Union([t.Literal('a')], { description: 'one' })],
    ['Union of one, no options', (t) => t.Union([t.Literal('a')])],
    ['Union', (t) => t.Union([t.Literal('a'), t.Literal('b'), t.Null()], { description: 'which' })],
    ['Record', (t) => t.Record(t.String(), t.Unknown())],
    ['Record with a key pattern', (t) => t.Record(t.String({ pattern: '^[a-z]+$' }), t.Integer(), { maxProperties: 5 })],
    ['nested', (t) => t.Object({ items: t.Array(t.Object({ id: t.String(), tags: t.Optional(t.Record(t.String(), t.String())) })) })],
  ];

  it.each(cases)('%s: the same object as TypeBox builds', (_, build) => {
    expect(shape(build(Type as unknown as typeof TypeBox))).toEqual(shape(build(TypeBox)));
  });

  it('refuses a record key it does not build like TypeBox', () => {
    expect(() => Type.Record(TypeBox.Integer(), TypeBox.String())).toThrow(/Type.String\(\) key/);
  });

  it('builds every published contract (v1 and v2) with its markers', () => {
    for (const contract of [...allContracts, ...allV2Contracts]) {
      expect((contract.schema as unknown as Record<symbol, unknown>)[Symbol.for('TypeBox.Kind')]).toBe('Object');
    }
  });
});
