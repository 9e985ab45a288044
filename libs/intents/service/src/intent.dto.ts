import { INTENT_NAME_PATTERN } from '@tenet/intents-domain';
import {
  PatchOf,
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateIf,
  ValidateNested,
} from '@tenet/platform-runtime/validation';
import { Type } from 'class-transformer';

/** Leave out, or give a value that passes the rules (`null` included: it is refused, never stored). */
const IsOmittable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_RULE = { message: 'name must be an identifier of 1-64 characters ([A-Za-z][A-Za-z0-9_]*)' };
const TEXT_RULE = (field: string) => ({ message: `${field} must be 1-200 characters each` });

export class IntentTagsPatchDto {
  @IsOmittable() @IsArray() @IsString({ each: true }) add?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) remove?: string[];
}

/**
 * `POST /intents` (ADR 0031): what customers come for. `tool` or `journey_id` (at most one) say what a recognised
 * intent runs; neither = classification only.
 */
export class IntentCreationDto {
  /** Lets fixtures use stable ids (as every Tenet resource). */
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString(NAME_RULE) @Matches(INTENT_NAME_PATTERN, NAME_RULE) name!: string;
  @IsOmittable()
  @IsString({ message: 'description must be a string of at most 500 characters' })
  @Length(0, 500, { message: 'description must be a string of at most 500 characters' })
  description?: string;
  @IsOmittable()
  @IsArray({ message: 'examples must be an array of strings' })
  @ArrayMaxSize(50, { message: 'examples must have at most 50 items' })
  @IsString({ each: true, ...TEXT_RULE('examples') })
  @Length(1, 200, { each: true, ...TEXT_RULE('examples') })
  examples?: string[];
  @IsOmittable()
  @IsArray({ message: 'keywords must be an array of strings' })
  @ArrayMaxSize(50, { message: 'keywords must have at most 50 items' })
  @IsString({ each: true, ...TEXT_RULE('keywords') })
  @Length(1, 200, { each: true, ...TEXT_RULE('keywords') })
  keywords?: string[];
  /** A JSON Schema of type object; checked to compile (in the dialect its `$schema` names) by the repository. */
  @IsOptional() @IsObject({ message: 'parameters must be a JSON Schema object' }) parameters?: Record<string, unknown> | null;
  /** A tool defined on the agents the intent applies to. */
  @IsOptional() @IsString({ message: 'tool must be a tool name' }) @Length(1, 200, { message: 'tool must be a tool name' }) tool?:
    string | null;
  @IsOptional()
  @IsString({ message: 'journey_id must be a journey id' })
  @Matches(ID_PATTERN, { message: 'journey_id must be a journey id' })
  journey_id?: string | null;
  /** `agent:<id>` scopes the intent to one agent, a tag to the agents carrying it; untagged = every agent of the workspace. */
  @IsOmittable()
  @IsArray({ message: 'tags must be an array of tag ids' })
  @IsString({ each: true, message: 'tags must be an array of tag ids' })
  tags?: string[];
}

/** `PATCH /intents/:id`: any field of the create form; `tags` as `{add, remove}`; `null` clears parameters, tool, journey_id. */
@PatchOf(IntentCreationDto, { differs: ['tags'], clears: ['parameters', 'tool', 'journey_id'] })
export class IntentUpdateDto {
  @IsOmittable() @IsString(NAME_RULE) @Matches(INTENT_NAME_PATTERN, NAME_RULE) name?: string;
  @IsOmittable()
  @IsString({ message: 'description must be a string of at most 500 characters' })
  @Length(0, 500, { message: 'description must be a string of at most 500 characters' })
  description?: string;
  @IsOmittable()
  @IsArray({ message: 'examples must be an array of strings' })
  @ArrayMaxSize(50, { message: 'examples must have at most 50 items' })
  @IsString({ each: true, ...TEXT_RULE('examples') })
  @Length(1, 200, { each: true, ...TEXT_RULE('examples') })
  examples?: string[];
  @IsOmittable()
  @IsArray({ message: 'keywords must be an array of strings' })
  @ArrayMaxSize(50, { message: 'keywords must have at most 50 items' })
  @IsString({ each: true, ...TEXT_RULE('keywords') })
  @Length(1, 200, { each: true, ...TEXT_RULE('keywords') })
  keywords?: string[];
  @IsOptional() @IsObject({ message: 'parameters must be a JSON Schema object' }) parameters?: Record<string, unknown> | null;
  @IsOptional() @IsString({ message: 'tool must be a tool name' }) @Length(1, 200, { message: 'tool must be a tool name' }) tool?:
    string | null;
  @IsOptional()
  @IsString({ message: 'journey_id must be a journey id' })
  @Matches(ID_PATTERN, { message: 'journey_id must be a journey id' })
  journey_id?: string | null;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => IntentTagsPatchDto) tags?: IntentTagsPatchDto;
}
