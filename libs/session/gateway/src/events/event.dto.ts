import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Length, ValidateIf, ValidateNested } from '@tenet/platform-runtime/validation';
import { IsOmittable, type ValidationDetail } from '@tenet/edge';
import type { SessionEventInput } from '@tenet/session-data-access';

export const EVENT_KINDS = ['message', 'tool', 'status', 'custom'] as const;
export const EVENT_SOURCES = ['customer', 'customer_ui', 'human_agent', 'human_agent_on_behalf_of_ai_agent', 'ai_agent', 'system'] as const;
export const STATUSES = ['acknowledged', 'cancelled', 'processing', 'ready', 'typing', 'error'] as const;

/**
 * What a client may post (Parlant's `create_event`): messages from the customer or a human agent, and custom
 * events. Agent messages, statuses and tool events are the platform's own record of a turn; a client posting
 * them would impersonate the agent (`ai_agent`) or fake a turn's progress (`status: ready`).
 */
export const CLIENT_POSTABLE: Readonly<Partial<Record<(typeof EVENT_KINDS)[number], readonly (typeof EVENT_SOURCES)[number][]>>> = {
  message: ['customer', 'human_agent', 'human_agent_on_behalf_of_ai_agent'],
  custom: ['customer', 'customer_ui', 'human_agent', 'human_agent_on_behalf_of_ai_agent', 'system'],
};

/** Why a client may not post this event (empty when it may). */
export function clientPostingProblems(event: Pick<EventCreationDto, 'kind' | 'source'>): ValidationDetail[] {
  const sources = CLIENT_POSTABLE[event.kind];
  if (!sources) {
    return [
      {
        loc: ['body', 'kind'],
        msg: `clients may post only ${Object.keys(CLIENT_POSTABLE).join(' and ')} events; "${event.kind}" events are written by the platform`,
        type: 'value_error.not_postable',
      },
    ];
  }
  if (!sources.includes(event.source)) {
    return [
      {
        loc: ['body', 'source'],
        msg: `a ${event.kind} event posted by a client must have source ${sources.join(', ')}; "${event.source}" is written by the platform`,
        type: 'value_error.not_postable',
      },
    ];
  }
  return [];
}

export class ParticipantDto {
  @IsOmittable() @IsString() id?: string;
  @IsString() @Length(1, 100) display_name!: string;
}

export class EventCreationDto implements SessionEventInput {
  @IsIn(EVENT_KINDS) kind!: (typeof EVENT_KINDS)[number];
  @IsIn(EVENT_SOURCES) source!: (typeof EVENT_SOURCES)[number];
  @ValidateIf((o: EventCreationDto) => o.kind === 'message')
  @IsString({ message: 'message is required for kind "message" and must be a string' })
  @Length(1, 10_000, { message: 'message must be 1-10000 characters' })
  message?: string;
  @IsOmittable() data?: unknown;
  @IsOmittable() @IsObject() metadata?: Record<string, unknown>;
  @IsOmittable() @ValidateNested() @Type(() => ParticipantDto) participant?: ParticipantDto;
  @ValidateIf((o: EventCreationDto) => o.kind === 'status')
  @IsIn(STATUSES, { message: `status is required for kind "status" and must be one of ${STATUSES.join(', ')}` })
  status?: (typeof STATUSES)[number];
}
