import { Type } from 'class-transformer';
import { COMPOSITION_MODES } from '../agents/agent.dto.js';
import { ToolIdDto } from '../context-variables/context-variable.dto.js';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import {
  PatchOf,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from '@tenet/platform-runtime/validation';

export const CRITICALITIES = ['low', 'medium', 'high'] as const;

const CONDITION_RULE = { message: 'condition must be 1-1000 characters' };
const ACTION_RULE = { message: 'action must be 1-2000 characters' };
const TITLE_RULE = { message: 'title must be 1-200 characters' };
const PRIORITY_MIN = { message: 'priority must be an integer from -1000 to 1000' };

export class GuidelineCreationDto {
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString(CONDITION_RULE) @Length(1, 1000, CONDITION_RULE) condition!: string;
  @IsOmittable() @IsString(ACTION_RULE) @Length(1, 2000, ACTION_RULE) action?: string;
  @IsOmittable() @IsString() description?: string;
  /** Parlant's display-only title (src/parlant/api/guidelines.py `GuidelineCreationParamsDTO.title`). */
  @IsOmittable() @IsString() @Length(1, 200, TITLE_RULE) title?: string;
  @IsOmittable() @IsIn(CRITICALITIES) criticality?: (typeof CRITICALITIES)[number];
  /** Parlant marks a continuous guideline with `metadata.continuous: true` (it re-applies whenever its condition holds). */
  @IsOmittable() @IsObject() metadata?: Record<string, unknown>;
  @IsOmittable() @IsBoolean() enabled?: boolean;
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOmittable() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOmittable() @IsBoolean() track?: boolean;
  @IsOmittable() @IsArray() @IsString({ each: true }) labels?: string[];
  @IsOmittable() @IsInt(PRIORITY_MIN) @Min(-1000, PRIORITY_MIN) @Max(1000, PRIORITY_MIN) priority?: number;
  /** Tenet's fields below: tool names, context variable names, journey scoping (docs/data-model.md#guidelines). */
  @IsOmittable() @IsArray() @IsString({ each: true }) tools?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) required_context?: string[];
  @IsOptional() @IsString() journey_id?: string | null;
  @IsOptional() @IsString() journey_step?: string | null;
}

/** Parlant's `{ add, remove }` for tool associations. */
export class ToolAssociationsPatchDto {
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolIdDto) add?: ToolIdDto[];
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolIdDto) remove?: ToolIdDto[];
}

export class MetadataPatchDto {
  @IsOmittable() @IsObject() set?: Record<string, unknown>;
  @IsOmittable() @IsArray() @IsString({ each: true }) unset?: string[];
}

export class LabelsPatchDto {
  @IsOmittable() @IsArray() @IsString({ each: true }) upsert?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) remove?: string[];
}

/** PATCH as Parlant's client sends it; Tenet's fields replace (`tools`, `required_context`) or clear with null. */
@PatchOf(GuidelineCreationDto, { differs: ['tags', 'metadata', 'labels'], clears: ['journey_id', 'journey_step'] })
export class GuidelineUpdateDto {
  @IsOmittable() @IsString(CONDITION_RULE) @Length(1, 1000, CONDITION_RULE) condition?: string;
  @IsOmittable() @IsString(ACTION_RULE) @Length(1, 2000, ACTION_RULE) action?: string;
  @IsOmittable() @IsString() description?: string;
  @IsOmittable() @IsString() @Length(1, 200, TITLE_RULE) title?: string;
  @IsOmittable() @IsIn(CRITICALITIES) criticality?: (typeof CRITICALITIES)[number];
  /** Parlant's tool associations; Tenet's tools live on agents, so `tool_name` names one (`service_name` is not checked). */
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => ToolAssociationsPatchDto) tool_associations?: ToolAssociationsPatchDto;
  @IsOmittable() @IsBoolean() enabled?: boolean;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => MetadataPatchDto) metadata?: MetadataPatchDto;
  @IsOmittable() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => LabelsPatchDto) labels?: LabelsPatchDto;
  @IsOmittable() @IsInt(PRIORITY_MIN) @Min(-1000, PRIORITY_MIN) @Max(1000, PRIORITY_MIN) priority?: number;
  @IsOmittable() @IsArray() @IsString({ each: true }) tools?: string[];
  @IsOmittable() @IsArray() @IsString({ each: true }) required_context?: string[];
  @IsOptional() @IsString() journey_id?: string | null;
  @IsOptional() @IsString() journey_step?: string | null;
}

export interface GuidelineView {
  id: string;
  condition: string;
  action?: string;
  description?: string;
  title?: string;
  criticality: (typeof CRITICALITIES)[number];
  enabled: boolean;
  tags: string[];
  metadata: Record<string, unknown>;
  composition_mode?: (typeof COMPOSITION_MODES)[number];
  track: boolean;
  labels: string[];
  priority: number;
  tools: string[];
  required_context: string[];
  journey_id?: string;
  journey_step?: string;
  creation_utc: string;
}

/** What `GuidelinesRepository.forAgent` gives the matcher: the guideline, and whether it is continuous. */
export type AgentGuideline = GuidelineView & { continuous: boolean };

/** Parlant's `GuidelineToolAssociationDTO`; Tenet derives one per tool the guideline names. */
export interface GuidelineToolAssociationView {
  id: string;
  guideline_id: string;
  tool_id: { service_name: string; tool_name: string };
}

/** Parlant's read/update answer: the guideline with its relationships (direct and indirect) and tool associations. */
export interface GuidelineWithRelationships {
  guideline: GuidelineView;
  relationships: Record<string, unknown>[];
  tool_associations: GuidelineToolAssociationView[];
}
