import { Type } from 'class-transformer';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import { PatchOf, IsArray, IsNotEmpty, IsObject, IsString, Matches, ValidateNested } from '@tenet/platform-runtime/validation';

export class TermCreationDto {
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString() @IsNotEmpty({ message: 'name must not be empty' }) name!: string;
  @IsString() @IsNotEmpty({ message: 'description must not be empty' }) description!: string;
  @IsOmittable()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true, message: 'synonyms must not contain empty strings' })
  synonyms?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
}

@PatchOf(TermCreationDto, { differs: ['tags'] })
export class TermUpdateDto {
  @IsOmittable() @IsString() @IsNotEmpty({ message: 'name must not be empty' }) name?: string;
  @IsOmittable() @IsString() @IsNotEmpty({ message: 'description must not be empty' }) description?: string;
  @IsOmittable()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true, message: 'synonyms must not contain empty strings' })
  synonyms?: string[];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
}

export interface TermView {
  id: string;
  name: string;
  description: string;
  synonyms: string[];
  tags: string[];
  creation_utc: string;
}
