import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';
import { ID_PATTERN } from '../ids.js';
import { TagsPatchDto } from '../tags/tag.dto.js';

export class CannedResponseFieldDto {
  @IsString() @Matches(/^[A-Za-z_][A-Za-z0-9_.]*$/, { message: 'fields[].name must be an identifier ([A-Za-z_][A-Za-z0-9_.]*)' }) name!: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) examples?: string[];
}

/** Parlant's canned response: a template whose `{{field}}` placeholders are filled when it is said. */
export class CannedResponseCreationDto {
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString() @Length(1, 5_000, { message: 'value must be 1-5000 characters' }) value!: string;
  /** Tenet accepts it absent: the fields are then the template's placeholders. */
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => CannedResponseFieldDto) fields?: CannedResponseFieldDto[];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) signals?: string[];
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
}

export class CannedResponseUpdateDto {
  @IsOptional() @IsString() @Length(1, 5_000, { message: 'value must be 1-5000 characters' }) value?: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => CannedResponseFieldDto) fields?: CannedResponseFieldDto[];
  @IsOptional() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOptional() @IsArray() @IsString({ each: true }) signals?: string[];
}

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
