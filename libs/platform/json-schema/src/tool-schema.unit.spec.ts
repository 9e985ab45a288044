import { checkArguments, compileToolSchema, dialectOf, toolSchemaProblem } from './tool-schema.js';

const EVIL = `${'a'.repeat(50_000)}!`;

describe('the tool-argument validator', () => {
  it.each([
    ['draft-04', 'http://json-schema.org/draft-04/schema#', { exclusiveMinimum: true, minimum: 0 }, 0],
    ['draft-06', 'http://json-schema.org/draft-06/schema#', { exclusiveMinimum: 0 }, 0],
    ['draft-07', 'http://json-schema.org/draft-07/schema#', { exclusiveMinimum: 0 }, 0],
    ['draft-07', 'https://json-schema.org/draft-07/schema', { exclusiveMinimum: 0 }, 0],
    ['2019-09', 'https://json-schema.org/draft/2019-09/schema', { exclusiveMinimum: 0 }, 0],
    ['2020-12', 'https://json-schema.org/draft/2020-12/schema', { exclusiveMinimum: 0 }, 0],
  ])('compiles a %s schema ($schema %s) with its own rules', (dialect, uri, count, bad) => {
    const schema = {
      $schema: uri,
      type: 'object',
      properties: { count: { type: 'number', ...count } },
      required: ['count'],
      additionalProperties: false,
    };
    const compiled = compileToolSchema(schema);
    expect(compiled).toMatchObject({ ok: true, dialect });
    expect(checkArguments(schema, { count: 2 })).toEqual({ ok: true });
    const refused = checkArguments(schema, { count: bad, extra: 1 });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? [] : refused.problems.map((p) => p.parameter).sort()).toEqual(['count', 'extra']);
  });

  it('what the official MCP servers send (zod-to-json-schema, draft-07) validates, as does a schema without $schema (2020-12)', () => {
    const mcp = {
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    };
    expect(checkArguments(mcp, { message: 'hi' })).toEqual({ ok: true });
    expect(checkArguments(mcp, {})).toEqual({ ok: false, problems: [{ parameter: 'message', rule: 'is required' }] });
    expect(dialectOf({ type: 'object' })).toMatchObject({ dialect: '2020-12' });
    // prefixItems is 2020-12 only: enforced without $schema.
    const tuple = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } };
    expect(checkArguments(tuple, { pair: ['a', 'b'] }).ok).toBe(false);
  });

  it('a schema that cannot compile is reported with its reason, never thrown', () => {
    expect(toolSchemaProblem({ $schema: 'http://example.com/my-dialect', type: 'object' })).toMatch(/not a supported dialect/);
    expect(toolSchemaProblem({ type: 'object', properties: { n: { type: 'nonsense' } } })).toMatch(/type/);
    expect(toolSchemaProblem({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)' } } })).toMatch(/lookaround/);
    expect(toolSchemaProblem('not an object')).toMatch(/JSON object/);
    expect(checkArguments({ type: 'object', properties: { n: { type: 'nonsense' } } }, {})).toMatchObject({
      ok: false,
      problems: [{ parameter: '(schema)' }],
    });
  });

  it('patterns run on RE2 in every dialect (no catastrophic backtracking)', () => {
    for (const $schema of ['http://json-schema.org/draft-04/schema#', 'http://json-schema.org/draft-07/schema#', undefined]) {
      const schema = { ...($schema ? { $schema } : {}), type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
      const started = Date.now();
      expect(checkArguments(schema, { s: EVIL }).ok).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it('two tools may share an $id, and compilations are cached by content', () => {
    const a = { $id: 'https://tools.example/shared.json', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const b = { $id: 'https://tools.example/shared.json', type: 'object', properties: { b: { type: 'string' } }, required: ['b'] };
    expect(checkArguments(a, { a: 'x' }).ok).toBe(true);
    expect(checkArguments(b, { b: 'x' }).ok).toBe(true);
    expect(compileToolSchema(JSON.parse(JSON.stringify(a)))).toBe(compileToolSchema(a));
  });
});
