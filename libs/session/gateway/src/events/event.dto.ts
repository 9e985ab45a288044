import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';

export const EVENT_KINDS = ['message', 'tool', 'status', 'custom'] as const;
export const EVENT_SOURCES = ['customer', 'customer_ui', 'human_agent', 'human_agent_on_behalf_of_ai_agent', 'ai_agent', 'system'] as const;
export const STATUSES = ['acknowledged', 'cancelled', 'processing', 'ready', 'typing', 'error'] as const;

export class ParticipantDto {
  @IsOptional() @IsString() id?: string;
  @IsString() @Length(1, 100) display_name!: string;
}

export class EventCreationDto {
  @IsIn(EVENT_KINDS) kind!: (typeof EVENT_KINDS)[number];
  @IsIn(EVENT_SOURCES) source!: (typeof EVENT_SOURCES)[number];
  @ValidateIf((o: EventCreationDto) => o.kind === 'message')
  @IsString({ message: 'message is required for kind "message" and must be a string' })
  @Length(1, 10_000, { message: 'message must be 1-10000 characters' })
  message?: string;
  @IsOptional() data?: unknown;
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
  @IsOptional() @ValidateNested() @Type(() => ParticipantDto) participant?: ParticipantDto;
  @ValidateIf((o: EventCreationDto) => o.kind === 'status')
  @IsIn(STATUSES, { message: `status is required for kind "status" and must be one of ${STATUSES.join(', ')}` })
  status?: (typeof STATUSES)[number];
}

/** Parlant's Event as it travels on the wire. */
export interface EventView {
  id: string;
  source: string;
  kind: string;
  offset: number;
  creation_utc: string;
  correlation_id: string;
  trace_id: string;
  data: unknown;
  metadata: Record<string, unknown>;
  deleted: boolean;
}
