import {
  BadRequestException,
  HttpException,
  HttpStatus,
  ValidationPipe,
  type ArgumentMetadata,
  type ValidationError,
} from '@nestjs/common';
import { classValidatorCore, createRuleErrors, ValidateIf } from '@tenet/platform-runtime/validation';

/** One FastAPI-style validation item, as Parlant returns them: where, what rule, which kind of error. */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class UnprocessableEntity extends HttpException {
  constructor(detail: ValidationDetail[]) {
    super({ detail }, HttpStatus.UNPROCESSABLE_ENTITY);
  }
}

export function flattenValidationErrors(errors: ValidationError[], location: (string | number)[]): ValidationDetail[] {
  return errors.flatMap((error) => {
    const loc = [...location, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
    // Rules that share one message (a type check and a length check both saying "1-100 characters") are
    // reported once for the field.
    const seen = new Set<string>();
    const own = Object.entries(error.constraints ?? {})
      .filter(([, msg]) => !seen.has(msg) && seen.add(msg))
      .map(([type, msg]) => ({ loc, msg, type }));
    return [...own, ...flattenValidationErrors(error.children ?? [], loc)];
  });
}

/**
 * Validation at the edge: unknown fields are rejected, every broken rule is reported as a 422 naming the
 * field (`loc`) and the rule (`msg`), and nothing reaches a handler — so nothing is written on bad input.
 */
export const edgeValidationPipe = (): ValidationPipe => new EdgeValidationPipe();

/** The edge's pipe: the DTO's own rules, then — for a PATCH DTO declared with `PatchOf` — the create DTO's rules. */
class EdgeValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new UnprocessableEntity(flattenValidationErrors(errors, ['body'])),
      // class-validator's validator core, not its entry point (which loads every rule with validator and
      // libphonenumber-js): the same functions, ADR 0035.
      validatorPackage: classValidatorCore,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const transformed: unknown = await super.transform(value, metadata);
    if (metadata.type === 'body') {
      const errors = createRuleErrors(metadata.metatype, value);
      if (errors.length > 0) throw new UnprocessableEntity(flattenValidationErrors(errors, ['body']));
    }
    return transformed;
  }
}

export const notFound = (what: string, id: string): HttpException =>
  new HttpException({ detail: `${what} ${id} not found` }, HttpStatus.NOT_FOUND);
export const badRequest = (detail: string): BadRequestException => new BadRequestException({ detail });

/**
 * A field that may be left out, but whose value, when given, must pass its rules — `null` included, so
 * `{"name": null}` is a 422 and never stored. `@IsOptional()` (which lets `null` through) is for the fields
 * where `null` means "clear this", and those declare `| null` in their type.
 */
export const IsOmittable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);
