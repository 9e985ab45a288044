import { Type } from 'class-transformer';
import { IsStringRecord, StringMetadataPatchDto } from '../customers/customer.dto.js';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import {
  PatchOf,
  Allow,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
  JSONSchema,
} from '@tenet/platform-runtime/validation';

export const DATA_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/**
 * Typed variables take identifier-style names (docs/data-model.md#context-variables); Parlant's own examples use names like "UserBalance", which are
 * refused here (with this message) rather than silently renamed, because guidelines reference variables by name.
 */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/;
export const NAME_RULE =
  'name must match ^[a-z][a-z0-9_]*$ for a variable with a data_type (lowercase identifier, e.g. user_balance; Parlant-style names such as UserBalance are for untyped variables)';
/** Five cron fields (minute hour day month weekday), as Parlant's `freshness_rules` examples use. */
const FRESHNESS_RULE = /^[0-9*,/?LW#A-Za-z-]+(\s+[0-9*,/?LW#A-Za-z-]+){4}$/;

const REQUIRED_DESCRIPTION =
  "While the customer has no value for it, the agent asks for it in every reply (the variable must be in the agent's scope) and the ready status lists it in missing_context; guidelines listing it in required_context stay inactive until it has one.";

export class ToolIdDto {
  @IsString() service_name!: string;
  @IsString() tool_name!: string;
}

/** The variable's value rules: applied to every value stored for it, and to its default. */
export class ValueRulesDto {
  @IsOptional() @IsString() pattern?: string | null;
  @IsOptional() @IsNumber() min?: number | null;
  @IsOptional() @IsNumber() max?: number | null;
  @IsOptional() @IsInt() @Min(0) min_length?: number | null;
  @IsOptional() @IsInt() @Min(0) max_length?: number | null;
  @IsOptional() @IsArray() allowed_values?: unknown[] | null;
}

export class ContextVariableCreationDto {
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  /** The identifier rule applies to typed variables (checked with the data_type); untyped ones take Parlant's names. */
  @IsString() @Length(1, 50, { message: 'name must be 1-50 characters' }) name!: string;
  @IsOmittable() @IsString() @Length(1, 500, { message: 'description must be 1-500 characters' }) description?: string;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => ToolIdDto) tool_id?: ToolIdDto;
  @IsOmittable()
  @IsString()
  @Matches(FRESHNESS_RULE, { message: 'freshness_rules must be a cron expression of 5 fields' })
  freshness_rules?: string;
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOmittable() @IsIn(DATA_TYPES) data_type?: DataType;
  @IsOmittable() @IsString() @Length(1, 1000, { message: 'extraction_prompt must be 1-1000 characters' }) extraction_prompt?: string;
  @JSONSchema({ description: REQUIRED_DESCRIPTION })
  @IsOmittable()
  @IsBoolean()
  required?: boolean;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ValueRulesDto) validation?: ValueRulesDto | null;
  @Allow() default_value?: unknown;
  @IsOmittable() @IsStringRecord() metadata?: Record<string, string>;
}

/** PATCH: plain fields replace, `tags` and `metadata` take Parlant's add/remove and set/unset; `null` clears an optional field. */
@PatchOf(ContextVariableCreationDto, {
  differs: ['tags', 'metadata'],
  clears: ['description', 'tool_id', 'freshness_rules', 'extraction_prompt', 'validation'],
})
export class ContextVariableUpdateDto {
  @IsOmittable() @IsString() @Length(1, 50, { message: 'name must be 1-50 characters' }) name?: string;
  @IsOptional() @IsString() @Length(1, 500, { message: 'description must be 1-500 characters' }) description?: string | null;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ToolIdDto) tool_id?: ToolIdDto | null;
  @IsOptional()
  @IsString()
  @Matches(FRESHNESS_RULE, { message: 'freshness_rules must be a cron expression of 5 fields' })
  freshness_rules?: string | null;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOmittable() @IsIn(DATA_TYPES) data_type?: DataType;
  @IsOptional() @IsString() @Length(1, 1000, { message: 'extraction_prompt must be 1-1000 characters' }) extraction_prompt?: string | null;
  @JSONSchema({ description: REQUIRED_DESCRIPTION })
  @IsOmittable()
  @IsBoolean()
  required?: boolean;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ValueRulesDto) validation?: ValueRulesDto | null;
  @Allow() default_value?: unknown;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => StringMetadataPatchDto) metadata?: StringMetadataPatchDto;
}

export class ContextVariableValueDto {
  @Allow() data?: unknown;
  /** Provenance of the value, where the caller knows it (Tenet extensions; docs/data-model.md#context-variables). */
  @IsOptional() @IsNumber() @Min(0) @Max(1) confidence?: number;
  @IsOptional() @IsString() @Length(1, 100) source_message_id?: string;
  @IsOptional() @IsDateString({ strict: true }) extracted_at?: string;
}

export interface ValueRules {
  pattern?: string;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  allowed_values?: unknown[];
}

export interface ContextVariableView {
  id: string;
  name: string;
  description?: string;
  tool_id?: { service_name: string; tool_name: string };
  freshness_rules?: string;
  tags: string[];
  /** Absent: any JSON value (Parlant's variables are untyped). */
  data_type?: DataType;
  extraction_prompt?: string;
  required: boolean;
  validation?: ValueRules;
  default_value?: unknown;
  metadata: Record<string, string>;
  creation_utc: string;
}

export interface ContextVariableValueView {
  id: string;
  last_modified: string;
  data: unknown;
  confidence?: number;
  source_message_id?: string;
  extracted_at?: string;
}

export interface ContextVariableReadResult {
  context_variable: ContextVariableView;
  key_value_pairs?: Record<string, ContextVariableValueView>;
}
