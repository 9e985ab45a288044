import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
  ValidateNested,
} from '@tenet/platform-runtime/validation';
import { ToolIdDto } from '../context-variables/context-variable.dto.js';

export class GuidelineContentDto {
  @IsString() @Length(1, 1000, { message: 'condition must be 1-1000 characters' }) condition!: string;
  @IsOptional() @IsString() @Length(1, 2000, { message: 'action must be 1-2000 characters' }) action?: string;
}

/** Parlant's GuidelinePayload: a guideline to add, or a new version of an existing one (`updated_id`). */
export class GuidelinePayloadDto {
  @IsObject() @ValidateNested() @Type(() => GuidelineContentDto) content!: GuidelineContentDto;
  @IsArray() @ValidateNested({ each: true }) @Type(() => ToolIdDto) tool_ids!: ToolIdDto[];
  @IsIn(['add', 'update']) operation!: 'add' | 'update';
  @ValidateIf((o: GuidelinePayloadDto) => o.operation === 'update')
  @IsString({ message: 'updated_id is required for operation "update" and must name an existing guideline' })
  updated_id?: string;
  @IsOptional() @IsBoolean() action_proposition?: boolean;
  @IsOptional() @IsBoolean() properties_proposition?: boolean;
  @IsOptional() @IsBoolean() journey_node_proposition?: boolean;
}

export class PayloadDto {
  @IsIn(['guideline'], { message: 'kind must be guideline (the only payload kind)' }) kind!: 'guideline';
  @IsObject() @ValidateNested() @Type(() => GuidelinePayloadDto) guideline!: GuidelinePayloadDto;
}

export class EvaluationCreationDto {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @ValidateNested({ each: true }) @Type(() => PayloadDto) payloads!: PayloadDto[];
}

export interface CoherenceFindingView {
  guideline_id: string;
  condition_similarity: number;
  reason: string;
}

export interface InvoiceView {
  payload: PayloadDto;
  checksum: string;
  /** False when the guideline contradicts another (existing, or earlier in the same evaluation). */
  approved: boolean;
  data?: { guideline: { action_proposition?: string; properties_proposition: Record<string, unknown> } };
  error?: string;
}

export type EvaluationStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface EvaluationView {
  id: string;
  status: EvaluationStatus;
  /** Percent of payloads evaluated, 0-100. */
  progress: number;
  creation_utc: string;
  error?: string;
  invoices: InvoiceView[];
}

/** What is stored: the view plus the payloads still to evaluate. */
export interface EvaluationRecord extends EvaluationView {
  payloads: PayloadDto[];
}
