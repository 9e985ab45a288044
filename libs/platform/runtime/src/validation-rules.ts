import { createRequire } from 'node:module';
import type * as ClassValidator from 'class-validator';
import type * as ClassValidatorJsonSchema from 'class-validator-jsonschema';

/**
 * The class-validator rules Tenet's DTOs use, each required from its own module of class-validator's CommonJS build
 * (`cjs/decorator/<group>/<Name>`), and the validator core the edge's ValidationPipe and the PATCH checks run.
 *
 * class-validator's entry point loads every one of its ~100 decorators and with them the whole `validator` package
 * and libphonenumber-js: 321 modules and ~18 MB in every HTTP process, of which the DTOs use 24 rules (ADR 0035).
 * These are the very functions the entry point re-exports — the same CommonJS module instances, one metadata storage
 * — so a DTO written with them validates exactly as one importing `class-validator` (validation-rules.unit.spec.ts
 * checks each is identical to the package's export). Import class-validator's values from here (lint enforces it);
 * its types from the package as before. Exported as `@tenet/platform-runtime/validation`, which only the HTTP hosts load.
 * A rule not listed yet is added here with its module path.
 */
const load = createRequire(import.meta.url);
type ClassValidatorExports = typeof ClassValidator;

const from = <K extends keyof ClassValidatorExports>(module: string, name: K): ClassValidatorExports[K] =>
  (load(`class-validator/cjs/${module}`) as ClassValidatorExports)[name];

export const Allow = from('decorator/common/Allow', 'Allow');
export const IsIn = from('decorator/common/IsIn', 'IsIn');
export const IsNotEmpty = from('decorator/common/IsNotEmpty', 'IsNotEmpty');
export const IsOptional = from('decorator/common/IsOptional', 'IsOptional');
export const NotEquals = from('decorator/common/NotEquals', 'NotEquals');
export const ValidateBy = from('decorator/common/ValidateBy', 'ValidateBy');
export const ValidateIf = from('decorator/common/ValidateIf', 'ValidateIf');
export const ValidateNested = from('decorator/common/ValidateNested', 'ValidateNested');
export const ArrayMaxSize = from('decorator/array/ArrayMaxSize', 'ArrayMaxSize');
export const ArrayMinSize = from('decorator/array/ArrayMinSize', 'ArrayMinSize');
export const Max = from('decorator/number/Max', 'Max');
export const Min = from('decorator/number/Min', 'Min');
export const IsDateString = from('decorator/string/IsDateString', 'IsDateString');
export const IsISO8601 = from('decorator/string/IsISO8601', 'IsISO8601');
export const isISO8601 = from('decorator/string/IsISO8601', 'isISO8601');
export const IsUrl = from('decorator/string/IsUrl', 'IsUrl');
export const Length = from('decorator/string/Length', 'Length');
export const Matches = from('decorator/string/Matches', 'Matches');
export const MaxLength = from('decorator/string/MaxLength', 'MaxLength');
export const IsArray = from('decorator/typechecker/IsArray', 'IsArray');
export const IsBoolean = from('decorator/typechecker/IsBoolean', 'IsBoolean');
export const IsInt = from('decorator/typechecker/IsInt', 'IsInt');
export const IsNumber = from('decorator/typechecker/IsNumber', 'IsNumber');
export const IsObject = from('decorator/typechecker/IsObject', 'IsObject');
export const IsString = from('decorator/typechecker/IsString', 'IsString');

export const getMetadataStorage = from('metadata/MetadataStorage', 'getMetadataStorage');
export const ValidationError = from('validation/ValidationError', 'ValidationError');

/**
 * class-validator-jsonschema's `@JSONSchema` (what a DTO adds to its OpenAPI schema) from its decorators module: the
 * package's entry point requires the whole of class-validator, which only the OpenAPI document needs, on its first
 * request (serve-openapi.ts).
 */
export const JSONSchema = (load('class-validator-jsonschema/build/decorators') as typeof ClassValidatorJsonSchema).JSONSchema;

const Validator = from('validation/Validator', 'Validator');
const getFromContainer = from('container', 'getFromContainer');

/**
 * class-validator's `validate`, `validateSync` and `getMetadataStorage` (what Nest's ValidationPipe uses, as its
 * `validatorPackage`, and the PATCH checks), doing what the package's own functions do for an object: run the
 * container's `Validator`.
 */
export const classValidatorCore = {
  validate: (object: object, options?: ClassValidator.ValidatorOptions): Promise<ClassValidator.ValidationError[]> =>
    getFromContainer(Validator).validate(object, options),
  validateSync: (object: object, options?: ClassValidator.ValidatorOptions): ClassValidator.ValidationError[] =>
    getFromContainer(Validator).validateSync(object, options),
  getMetadataStorage,
};
