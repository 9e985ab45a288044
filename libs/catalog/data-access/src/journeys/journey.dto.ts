import { Type } from 'class-transformer';
import {
  DEFAULT_FAILURE_POLICY,
  FAILURE_ACTIONS,
  STEP_KINDS,
  type JourneyFailurePolicy,
  type JourneyStep,
  type JourneyTimeouts,
  type JourneyTransition,
} from '@tenet/journeys-domain';
import { COMPOSITION_MODES } from '../agents/agent.dto.js';
import { LabelsPatchDto } from '../guidelines/guideline.dto.js';
import { ID_PATTERN } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import {
  PatchOf,
  IsArray,
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
  JSONSchema,
} from '@tenet/platform-runtime/validation';

/** As guidelines': bounded, since 1e308 is an integer to JavaScript and would otherwise be stored. */
const PRIORITY_RULE = { message: 'priority must be an integer from -1000 to 1000' };
const TRANSITION_PRIORITY_RULE = { message: 'priority must be an integer from -100 to 100' };

const TITLE_RULE = { message: 'title must be 1-100 characters' };
const CONDITION_RULE = { message: 'each condition must be 1-1000 characters' };

/** Shapes only; the journey rules (references, reachability, kinds: docs/data-model.md#journeys) are the domain's `validateJourney`. */
export class JourneyStepDto {
  @IsString() id!: string;
  @IsString() name!: string;
  @IsIn(STEP_KINDS, { message: `kind must be one of ${STEP_KINDS.join(', ')}` }) kind!: JourneyStep['kind'];
  @IsOptional() @IsString() instruction?: string;
  @IsOptional() @IsString() tool?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) required_context?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) guidelines?: string[];
}

export class JourneyTransitionDto {
  @IsString() from!: string;
  @IsString() to!: string;
  @IsOptional() @IsString() condition?: string;
  @IsOptional() @IsInt(TRANSITION_PRIORITY_RULE) @Min(-100, TRANSITION_PRIORITY_RULE) @Max(100, TRANSITION_PRIORITY_RULE) priority?: number;
}

export class JourneyTimeoutsDto {
  @IsOptional() @IsInt() abandon_after_secs?: number;
  @IsOptional() @IsInt() expire_after_secs?: number;
}

/** What a failed tool step leads to (ADR 0030) (the step is checked against the journey by `validateJourney`). */
export class JourneyFailureDto {
  @IsIn(FAILURE_ACTIONS, { message: `on_failure.action must be one of ${FAILURE_ACTIONS.join(', ')}` })
  action!: JourneyFailurePolicy['action'];
  @IsOptional() @IsString() step?: string;
}

const ON_FAILURE_DESCRIPTION =
  "What a failed tool step (error, timeout, no runnable tool) leads to: {action: 'end'} (default: the journey is Failed, the customer is told, journey.failed is published), {action: 'handoff'} (the same, then the session goes to a human), or {action: 'step', step} (the journey goes on there). null (PATCH) restores the default.";

/**
 * Parlant's `JourneyCreationParamsDTO`: `conditions` as parlant-client 3.3.1 sends it, `triggers` as Parlant's
 * HEAD names it (either or both; each text becomes a condition guideline), then Tenet's fields (docs/data-model.md#journeys).
 */
export class JourneyCreationDto {
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString(TITLE_RULE) @Length(1, 100, TITLE_RULE) title!: string;
  @IsString() description!: string;
  @IsOptional()
  @IsArray()
  @IsString({ each: true, ...CONDITION_RULE })
  @Length(1, 1000, { each: true, ...CONDITION_RULE })
  conditions?: string[];
  @IsOptional()
  @IsArray()
  @IsString({ each: true, ...CONDITION_RULE })
  @Length(1, 1000, { each: true, ...CONDITION_RULE })
  triggers?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOptional() @IsArray() @IsString({ each: true }) labels?: string[];
  @IsOptional() @IsInt(PRIORITY_RULE) @Min(-1000, PRIORITY_RULE) @Max(1000, PRIORITY_RULE) priority?: number;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => JourneyStepDto) steps?: JourneyStepDto[];
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => JourneyTransitionDto) transitions?: JourneyTransitionDto[];
  @IsOptional() @IsString() initial_step?: string;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => JourneyTimeoutsDto) timeouts?: JourneyTimeoutsDto;
  @JSONSchema({ description: ON_FAILURE_DESCRIPTION })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => JourneyFailureDto)
  on_failure?: JourneyFailureDto;
}

/** Parlant's `{ add, remove }` of condition guideline ids (`triggers` at HEAD). */
export class ConditionsPatchDto {
  @IsOptional() @IsArray() @IsString({ each: true }) add?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) remove?: string[];
}

/** Parlant's `JourneyUpdateParamsDTO`; Tenet's `steps`/`transitions`/`initial_step` replace the graph (validated as a whole). */
@PatchOf(JourneyCreationDto, { differs: ['conditions', 'triggers', 'tags', 'labels'], clears: ['initial_step', 'on_failure'] })
export class JourneyUpdateDto {
  @IsOptional() @IsString(TITLE_RULE) @Length(1, 100, TITLE_RULE) title?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ConditionsPatchDto) conditions?: ConditionsPatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ConditionsPatchDto) triggers?: ConditionsPatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOptional() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOptional() @IsObject() @ValidateNested() @Type(() => LabelsPatchDto) labels?: LabelsPatchDto;
  @IsOptional() @IsInt(PRIORITY_RULE) @Min(-1000, PRIORITY_RULE) @Max(1000, PRIORITY_RULE) priority?: number;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => JourneyStepDto) steps?: JourneyStepDto[];
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => JourneyTransitionDto) transitions?: JourneyTransitionDto[];
  @IsOptional() @IsString() initial_step?: string | null;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => JourneyTimeoutsDto) timeouts?: JourneyTimeoutsDto;
  @JSONSchema({ description: ON_FAILURE_DESCRIPTION })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => JourneyFailureDto)
  on_failure?: JourneyFailureDto | null;
}

/** The stored journey: Parlant's `JourneyDTO` fields (`conditions` = condition guideline ids) and Tenet's step graph. */
export interface JourneyRecord {
  id: string;
  title: string;
  description: string;
  conditions: string[];
  tags: string[];
  composition_mode?: (typeof COMPOSITION_MODES)[number];
  labels: string[];
  priority: number;
  steps: JourneyStep[];
  transitions: JourneyTransition[];
  initial_step?: string;
  timeouts: JourneyTimeouts;
  /** Absent: the default (end). */
  on_failure?: JourneyFailurePolicy;
  creation_utc: string;
  modified_utc: string;
}

/** On the wire: the record plus `triggers`, Parlant HEAD's name for the same condition ids. */
export type JourneyView = JourneyRecord & { triggers: string[]; on_failure: JourneyFailurePolicy };

export const toJourneyView = (journey: JourneyRecord): JourneyView => ({
  ...journey,
  on_failure: journey.on_failure ?? DEFAULT_FAILURE_POLICY,
  triggers: journey.conditions,
});
