import { Type } from 'class-transformer';
import { LabelsPatchDto, MetadataPatchDto } from '@tenet/catalog-data-access';
import { ID_PATTERN, IsOmittable } from '@tenet/edge';
import {
  PatchOf,
  IsArray,
  IsBoolean,
  IsDateString,
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
import { SESSION_MODES, type SessionMode, type SessionView } from '@tenet/session-data-access';

/** The session's `config` (docs/data-model.md#sessions), a Tenet extension on Parlant's session. */
export class SessionConfigDto {
  @IsOmittable() @IsInt() @Min(60) @Max(86_400) ttl_secs?: number;
  @IsOmittable() @IsInt() @Min(30) @Max(3_600) idle_timeout_secs?: number;
  @JSONSchema({
    description:
      "How many earlier messages of this session a turn gives the model (10-1000); the agent's config.max_history_length applies too, the smaller wins.",
  })
  @IsOmittable()
  @IsInt()
  @Min(10)
  @Max(1_000)
  max_messages?: number;
  @JSONSchema({
    type: ['boolean', 'null'],
    description:
      "Context extraction for this session: true or false override the agent's config.auto_extract_context; null (the default) lets the agent decide.",
  })
  @IsOptional()
  @IsBoolean({ message: 'config.auto_extract must be true, false or null (null: the agent decides)' })
  auto_extract?: boolean | null;
  @IsOmittable() @IsBoolean() enable_journeys?: boolean;
}

export class SessionCreationDto {
  @IsString() @Matches(ID_PATTERN, { message: 'agent_id must be 1-64 characters of [A-Za-z0-9_-]' }) agent_id!: string;
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'customer_id must be 1-64 characters of [A-Za-z0-9_-]' }) customer_id?: string;
  @IsOmittable() @IsString() @Length(1, 200) title?: string;
  @IsOmittable() @IsObject() metadata?: Record<string, unknown>;
  @IsOmittable() @IsArray() @IsString({ each: true }) labels?: string[];
  @IsOmittable() @IsBoolean() allow_greeting?: boolean;
  @IsOmittable() @ValidateNested() @Type(() => SessionConfigDto) config?: SessionConfigDto;
  /** Must be in the future; caps the session's lifetime. */
  @IsOmittable() @IsDateString({ strict: true }) expires_at?: string;
}

/** The statuses a client may end a session with (docs/data-model.md#sessions). */
export const SESSION_END_STATUSES = ['completed', 'abandoned'] as const;

export class ConsumptionOffsetsPatchDto {
  @IsOptional() @IsInt() @Min(0) client?: number;
}

/** Parlant's SessionUpdateParams, plus Tenet's `status` to end the session (completed/abandoned). */
@PatchOf(SessionCreationDto, { differs: ['metadata', 'labels'] })
export class SessionUpdateDto {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ConsumptionOffsetsPatchDto) consumption_offsets?: ConsumptionOffsetsPatchDto;
  @IsOptional() @IsString() @Length(1, 200) title?: string;
  @IsOptional() @IsIn(SESSION_MODES, { message: `mode must be one of ${SESSION_MODES.join(', ')}` }) mode?: SessionMode;
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'customer_id must be 1-64 characters of [A-Za-z0-9_-]' }) customer_id?: string;
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'agent_id must be 1-64 characters of [A-Za-z0-9_-]' }) agent_id?: string;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => MetadataPatchDto) metadata?: MetadataPatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => LabelsPatchDto) labels?: LabelsPatchDto;
  @IsOptional()
  @IsIn(SESSION_END_STATUSES, { message: `status must be one of ${SESSION_END_STATUSES.join(', ')} (it ends the session)` })
  status?: (typeof SESSION_END_STATUSES)[number];
}

export interface SessionPage {
  items: SessionView[];
  total_count: number;
  has_more: boolean;
  next_cursor?: string;
}
