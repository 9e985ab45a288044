import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { ID_PATTERN } from '../ids.js';
import { TagsPatchDto } from '../tags/tag.dto.js';

export class TermCreationDto {
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString() @IsNotEmpty({ message: 'name must not be empty' }) name!: string;
  @IsString() @IsNotEmpty({ message: 'description must not be empty' }) description!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @IsNotEmpty({ each: true, message: 'synonyms must not contain empty strings' }) synonyms?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
}

export class TermUpdateDto {
  @IsOptional() @IsString() @IsNotEmpty({ message: 'name must not be empty' }) name?: string;
  @IsOptional() @IsString() @IsNotEmpty({ message: 'description must not be empty' }) description?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @IsNotEmpty({ each: true, message: 'synonyms must not contain empty strings' }) synonyms?: string[];
  @IsOptional() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
}

export interface TermView {
  id: string;
  name: string;
  description: string;
  synonyms: string[];
  tags: string[];
  creation_utc: string;
}
