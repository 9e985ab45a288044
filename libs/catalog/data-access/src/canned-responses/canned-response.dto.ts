import { Type } from 'class-transformer';
import { MetadataPatchDto } from '../guidelines/guideline.dto.js';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import { PatchOf, IsArray, IsObject, IsString, Length, Matches, ValidateNested } from '@tenet/platform-runtime/validation';

const VALUE_RULE = { message: 'value must be 1-5000 characters' };

/** Parlant's `CannedResponseFieldDTO` (src/parlant/api/canned_responses.py): name, description, examples. */
export class CannedResponseFieldDto {
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_.]*$/, { message: 'fields[].name must be an identifier ([A-Za-z_][A-Za-z0-9_.]*)' })
  name!: string;
  /** Parlant requires it; Tenet defaults it to "". */
  @IsOmittable() @IsString() description?: string;
  /** Parlant requires it; Tenet defaults it to []. */
  @IsOmittable() @IsArray() @IsString({ each: true }) examples?: string[];
}

/** Parlant's `CannedResponseCreationParamsDTO`: a template whose `{{field}}` placeholders are filled when it is said. */
export class CannedResponseCreationDto {
  /** Tenet extension (Parlant generates the id): lets fixtures use stable ids. */
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString(VALUE_RULE) @Length(1, 5_000, VALUE_RULE) value!: string;
  /** Parlant requires it; Tenet accepts it absent: the fields are then the template's placeholders. */
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => CannedResponseFieldDto) fields?: CannedResponseFieldDto[];
  /** Tag ids; `agent:<id>` scopes the response to one agent, no agent tag makes it apply to every agent. */
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) signals?: string[];
  @IsOmittable() @IsObject() metadata?: Record<string, unknown>;
  @IsOmittable() @IsArray() @IsString({ each: true }) field_dependencies?: string[];
}

/** Parlant's `CannedResponseUpdateParamsDTO`: value (with its fields), tags `{add, remove}`, metadata `{set, unset}`. */
@PatchOf(CannedResponseCreationDto, { differs: ['tags', 'metadata'] })
export class CannedResponseUpdateDto {
  @IsOmittable() @IsString(VALUE_RULE) @Length(1, 5_000, VALUE_RULE) value?: string;
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => CannedResponseFieldDto) fields?: CannedResponseFieldDto[];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => MetadataPatchDto) metadata?: MetadataPatchDto;
  /** Tenet extension: replaces the signals (Parlant sets them only at creation). */
  @IsOmittable() @IsArray() @IsString({ each: true }) signals?: string[];
}

/** Parlant's `CannedResponseDTO`. */
export interface CannedResponseView {
  id: string;
  creation_utc: string;
  value: string;
  fields: { name: string; description: string; examples: string[] }[];
  tags: string[];
  signals: string[];
  metadata: Record<string, unknown>;
  field_dependencies: string[];
}
