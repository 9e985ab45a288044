import { createRequire } from 'node:module';
import type * as ClassValidator from 'class-validator';
import type * as ClassValidatorJsonSchema from 'class-validator-jsonschema';
import * as rules from './validation-rules.js';

// The package's entry point, loaded here only to compare with: every rule exported by validation-rules.ts must be
// the very function class-validator exports under that name (same CommonJS module, same metadata storage).
const classValidator = createRequire(import.meta.url)('class-validator') as typeof ClassValidator;
const jsonSchema = createRequire(import.meta.url)('class-validator-jsonschema') as typeof ClassValidatorJsonSchema;

describe('validation rules from their own class-validator modules', () => {
  const exported = Object.entries(rules).filter(([name]) => name !== 'classValidatorCore' && name !== 'JSONSchema');

  it('JSONSchema is class-validator-jsonschema’s own export', () => {
    expect(rules.JSONSchema).toBe(jsonSchema.JSONSchema);
  });

  it.each(exported)('%s is class-validator’s own export', (name, value) => {
    expect(value).toBeDefined();
    expect(value).toBe(classValidator[name as keyof typeof ClassValidator]);
  });

  it('the core validates as class-validator’s validate and validateSync do', async () => {
    class Probe {
      @rules.IsString()
      @rules.Length(2, 4)
      name!: unknown;

      @rules.IsOptional()
      @rules.IsInt()
      @rules.Min(1)
      count?: unknown;
    }
    const bad = Object.assign(new Probe(), { name: 'x', count: 0 });
    const good = Object.assign(new Probe(), { name: 'abc' });
    const options = { validationError: { target: false, value: false } };
    expect(await rules.classValidatorCore.validate(bad, options)).toEqual(await classValidator.validate(bad, options));
    expect(rules.classValidatorCore.validateSync(bad, options)).toEqual(classValidator.validateSync(bad, options));
    expect(rules.classValidatorCore.validateSync(bad, options).map((e) => e.property)).toEqual(['name', 'count']);
    expect(await rules.classValidatorCore.validate(good)).toEqual([]);
    expect(rules.classValidatorCore.getMetadataStorage()).toBe(classValidator.getMetadataStorage());
  });
});
