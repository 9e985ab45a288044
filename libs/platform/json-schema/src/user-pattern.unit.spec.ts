import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileUserPattern, re2RegExp } from './user-pattern.js';

// With backtracking RegExp, `^(a+)+$` against this input would not finish in any test's lifetime.
const EVIL = `${'a'.repeat(50_000)}!`;

describe('user patterns run on RE2', () => {
  it('matches anywhere unless anchored, as JSON Schema `pattern` does', () => {
    const digits = compileUserPattern('\\d{3}');
    expect(digits.ok && digits.pattern.test('order 123')).toBe(true);
    const anchored = compileUserPattern('^\\d{3}$');
    expect(anchored.ok && anchored.pattern.test('order 123')).toBe(false);
  });

  it('answers a catastrophic-backtracking pattern in linear time', () => {
    const evil = compileUserPattern('^(a+)+$');
    expect(evil.ok && evil.pattern.test(EVIL)).toBe(false);
  });

  it.each([
    ['(?=a)', /lookaround/],
    ['(?<!a)b', /lookaround/],
    ['(a)\\1', /backreferences/],
    ['(', /not a valid RE2 regular expression/],
  ])('refuses %s and says why', (source, why) => {
    const compiled = compileUserPattern(source);
    expect(compiled.ok).toBe(false);
    expect(!compiled.ok && compiled.reason).toMatch(why);
  });

  it('serves as ajv regExp engine: schema patterns run in linear time, unsupported ones fail compilation', () => {
    const ajv = new Ajv2020({ strict: false, code: { regExp: re2RegExp } });
    const validate = ajv.compile({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } });
    expect(validate({ code: EVIL })).toBe(false);
    expect(validate({ code: 'aaa' })).toBe(true);
    expect(() => ajv.compile({ type: 'string', pattern: '(?=x)' })).toThrow(/lookaround/);
  });
});
