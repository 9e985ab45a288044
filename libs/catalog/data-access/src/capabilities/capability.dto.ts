import { Type } from 'class-transformer';
import { ID_PATTERN } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import {
  PatchOf,
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from '@tenet/platform-runtime/validation';

const TITLE_RULE = { message: 'title must be 1-200 characters' };
const DESCRIPTION_RULE = { message: 'description must be 1-2000 characters' };
const SIGNAL_RULE = { each: true, message: 'each signal must be 1-500 characters' };

/** Parlant's CapabilityCreationParams: what the agent can do, and phrases customers use when they want it. */
export class CapabilityCreationDto {
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString(TITLE_RULE) @Length(1, 200, TITLE_RULE) title!: string;
  @IsString(DESCRIPTION_RULE) @Length(1, 2000, DESCRIPTION_RULE) description!: string;
  @IsArray() @ArrayMaxSize(100) @IsString(SIGNAL_RULE) @Length(1, 500, SIGNAL_RULE) signals!: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
}

@PatchOf(CapabilityCreationDto, { differs: ['tags'] })
export class CapabilityUpdateDto {
  @IsOptional() @IsString(TITLE_RULE) @Length(1, 200, TITLE_RULE) title?: string;
  @IsOptional() @IsString(DESCRIPTION_RULE) @Length(1, 2000, DESCRIPTION_RULE) description?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString(SIGNAL_RULE) @Length(1, 500, SIGNAL_RULE) signals?: string[];
  @IsOptional() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
}

export interface CapabilityView {
  id: string;
  title: string;
  description: string;
  signals: string[];
  tags: string[];
  creation_utc: string;
}
