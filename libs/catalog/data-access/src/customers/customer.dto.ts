import { Type } from 'class-transformer';
import type { ValidationOptions } from 'class-validator';
import { GUEST_CUSTOMER_ID, ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import { PatchOf, IsArray, IsObject, IsString, Length, Matches, ValidateBy, ValidateNested } from '@tenet/platform-runtime/validation';

/** Parlant customer metadata is `str: str`; anything else is refused rather than coerced. */
export function IsStringRecord(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringRecord',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'),
        defaultMessage: (args) => `${args?.property ?? 'value'} must be an object whose values are strings`,
      },
    },
    options,
  );
}

export class CustomerCreationDto {
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name!: string;
  @IsOmittable() @IsStringRecord() metadata?: Record<string, string>;
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
}

/** Parlant's `{ set, unset }` metadata patch. */
export class StringMetadataPatchDto {
  @IsOmittable() @IsStringRecord() set?: Record<string, string>;
  @IsOmittable() @IsArray() @IsString({ each: true }) unset?: string[];
}

@PatchOf(CustomerCreationDto, { differs: ['metadata', 'tags'] })
export class CustomerUpdateDto {
  @IsOmittable() @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name?: string;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => StringMetadataPatchDto) metadata?: StringMetadataPatchDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
}

export interface CustomerView {
  id: string;
  name: string;
  metadata: Record<string, string>;
  tags: string[];
  creation_utc: string;
}

export interface CustomerPage {
  items: CustomerView[];
  total_count: number;
  has_more: boolean;
  next_cursor?: string;
}

export { GUEST_CUSTOMER_ID };
/**
 * The context-variable value key of one guest session: every anonymous session is the `guest` customer, so what
 * is extracted in one is kept under its session (':' cannot occur in a customer id, so no customer shares it).
 */
export const guestSessionKey = (sessionId: string): string => `session:${sessionId}`;

/** Parlant's built-in customer for sessions opened without one; it exists before anything is stored. */
export const GUEST_CUSTOMER: CustomerView = {
  id: GUEST_CUSTOMER_ID,
  name: 'Guest',
  metadata: {},
  tags: [],
  creation_utc: '1970-01-01T00:00:00.000Z',
};

/** `{ set, unset }` applied to a record: unset wins over set. */
export function patchRecord<V>(
  current: Readonly<Record<string, V>>,
  patch: { set?: Record<string, V> | undefined; unset?: string[] | undefined } | undefined,
): Record<string, V> {
  const next: Record<string, V> = { ...current, ...(patch?.set ?? {}) };
  for (const key of patch?.unset ?? []) delete next[key];
  return next;
}
