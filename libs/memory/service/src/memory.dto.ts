import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from '@tenet/platform-runtime/validation';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const ID_RULE = '1-64 characters of [A-Za-z0-9_-]';
/** Left out is fine; given (null included) it must pass the rules. */
const IsOmittable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Formats a source may be ingested as (`pdf`: the file in base64 in `content`); anything else (docx) is a 415 naming these. */
export const INGESTIBLE_FORMATS = ['markdown', 'html', 'text', 'pdf'] as const;

export class KnowledgeSourceDto {
  @IsOmittable() @IsString() @Matches(ID, { message: `id must be ${ID_RULE}` }) id?: string;
  @IsString() @Length(1, 200, { message: 'title must be 1-200 characters' }) title!: string;
  @IsOmittable() @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'url must be an http(s) URL' }) url?: string;
  @IsString() @Length(1, 64, { message: 'format must be one of: markdown, html, text, pdf' }) format!: string;
  @IsString() @Length(1, 2_000_000, { message: 'content must be 1-2000000 characters' }) content!: string;
  @IsOmittable()
  @IsArray()
  @IsString({ each: true })
  @Matches(ID, { each: true, message: `each agent id must be ${ID_RULE}` })
  agent_ids?: string[];
}

export class FactSourceDto {
  @IsIn(['conversation', 'operator', 'import'], { message: 'kind must be one of: conversation, operator, import' }) kind!:
    'conversation' | 'operator' | 'import';
  @IsOmittable() @IsString() @Length(1, 64) session_id?: string;
  @IsOmittable() @IsString() @Length(1, 64) message_id?: string;
}

export class FactCreationDto {
  @IsOmittable() @IsString() @Matches(ID, { message: `id must be ${ID_RULE}` }) id?: string;
  @IsString() @Length(1, 500, { message: 'subject must be 1-500 characters' }) subject!: string;
  @IsString() @Length(1, 500, { message: 'predicate must be 1-500 characters' }) predicate!: string;
  @IsString() @Length(1, 500, { message: 'object must be 1-500 characters' }) object!: string;
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0, { message: 'confidence must be from 0 to 1' })
  @Max(1, { message: 'confidence must be from 0 to 1' })
  confidence?: number;
  @IsOmittable() @IsIn(['single', 'multiple'], { message: 'cardinality must be one of: single, multiple' }) cardinality?:
    'single' | 'multiple';
  @IsOptional() @IsObject() @ValidateNested() @Type(() => FactSourceDto) source?: FactSourceDto;
}
