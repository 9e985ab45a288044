import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { patchRecord, MetadataPatchDto } from '@tenet/catalog-data-access';
import { notFound, UnprocessableEntity } from '@tenet/edge';
import { SessionEventsService, SessionsRepository, type EventView } from '@tenet/session-data-access';
import { EventCreationDto } from './event.dto.js';
import { eventFrame, EVENT_STREAM_HEADERS } from './event-stream.js';

import { PatchOf, IsObject, IsOptional, ValidateNested } from '@tenet/platform-runtime/validation';

/** Parlant's EventUpdateParams: only the metadata of an event can change. */
@PatchOf(EventCreationDto, { differs: ['metadata'] })
export class EventUpdateDto {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => MetadataPatchDto) metadata?: MetadataPatchDto;
}

/**
 * Reading, patching and deleting single session events. The session stream is append-only: a patch or a
 * delete is a new event in the session's record stream (`SessionEventPatched`, `SessionEventsDeleted`) that
 * every view applies — list, long-poll, SSE, a single read and the turn's history — while the original
 * events stay in the log (docs/adr/0012-deletes-in-an-append-only-log.md).
 */
@Controller('sessions/:sessionId/events')
export class EventEditsHttpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: SessionEventsService,
  ) {}

  /**
   * Parlant's read of one event. Its `wait_for_completion`/`sse` exist for streamed (chunked) messages;
   * Tenet appends every event complete, so the event is returned at once (with `sse=true`, as one frame).
   */
  @Get(':eventId')
  async read(
    @Param('sessionId') sessionId: string,
    @Param('eventId') eventId: string,
    @Query('sse') sse?: string,
  ): Promise<EventView | Response> {
    const event = await this.find(sessionId, eventId);
    if (sse !== undefined && ['1', 'true', 'yes', 'on', 't', 'y'].includes(sse.toLowerCase())) {
      return new Response(eventFrame(event), { status: HttpStatus.OK, headers: EVENT_STREAM_HEADERS });
    }
    return event;
  }

  /** Parlant's event update: `metadata` set/unset (unset wins). */
  @Patch(':eventId')
  async update(@Param('sessionId') sessionId: string, @Param('eventId') eventId: string, @Body() body: EventUpdateDto): Promise<EventView> {
    const current = await this.find(sessionId, eventId);
    if (body.metadata) {
      const metadata = patchRecord(current.metadata, body.metadata);
      await this.sessions.change(sessionId, (record) => ({
        // Patched again from the latest record, so concurrent patches of one event do not drop each other.
        events: [
          {
            type: 'SessionEventPatched',
            data: {
              event_id: eventId,
              metadata: record.edits.metadata[eventId] ? patchRecord(record.edits.metadata[eventId], body.metadata) : metadata,
            },
          },
        ],
        result: undefined,
      }));
    }
    return this.find(sessionId, eventId);
  }

  /** Parlant's delete: every event from `min_offset` on, as it stands now (later events are not affected). */
  @Delete()
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('sessionId') sessionId: string, @Query('min_offset') rawMinOffset?: string): Promise<void> {
    if (rawMinOffset === undefined || !/^\d+$/.test(rawMinOffset) || !Number.isSafeInteger(Number(rawMinOffset))) {
      throw new UnprocessableEntity([
        { loc: ['query', 'min_offset'], msg: 'min_offset is required and must be a non-negative integer', type: 'value_error' },
      ]);
    }
    const minOffset = Number(rawMinOffset);
    const changed = await this.sessions.change(sessionId, async (record) => {
      const before = await this.events.length(sessionId);
      // Nothing to delete, or one earlier tombstone already covers the range: no new event.
      const already = before <= minOffset || record.edits.deleted.some((range) => range.from <= minOffset && range.to >= before);
      return {
        events: already ? [] : [{ type: 'SessionEventsDeleted', data: { min_offset: minOffset, before_offset: before } }],
        result: undefined,
      };
    });
    if (!changed) throw notFound('session', sessionId);
  }

  private async find(sessionId: string, eventId: string): Promise<EventView> {
    if (!(await this.sessions.get(sessionId))) throw notFound('session', sessionId);
    return (await this.events.get(sessionId, eventId)) ?? Promise.reject(notFound('event', eventId));
  }
}
