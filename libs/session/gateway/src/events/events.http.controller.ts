import { setMaxListeners } from 'node:events';
import { JOURNEY_TRANSITION_EVENT_TYPE } from '@tenet/contracts';
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  HttpException,
  HttpStatus,
  Param,
  Post,
  Query,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  notFound,
  UnprocessableEntity,
  type ValidationDetail,
  IdempotencyKeyReusedError,
  idempotencyKeyOf,
  malformedKey,
  reusedKey,
} from '@tenet/edge';
import { SessionEventsService, SessionsRepository, SessionTimers, type EventFilter, type EventView } from '@tenet/session-data-access';
import { TurnService } from '@tenet/session-turn';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { clientPostingProblems, EVENT_KINDS, EVENT_SOURCES, EventCreationDto } from './event.dto.js';
import { EVENT_STREAM_HEADERS, sessionEventStream } from './event-stream.js';

/** What `kinds` may name when listing: Parlant's kinds, and `journey_transition` for the journey records alone (shown as `custom`). */
const LISTED_KINDS = [...EVENT_KINDS, JOURNEY_TRANSITION_EVENT_TYPE] as const;

const MAX_WAIT_SECS = 300;
/** Parlant's default wait_for_data, which in SSE mode is how long the stream may stay without an event. */
const SSE_DEFAULT_WAIT_SECS = 60;
/** How FastAPI (pydantic) reads a boolean query parameter; anything else is a 422. */
const TRUE_WORDS = ['1', 'on', 't', 'true', 'y', 'yes'];
const FALSE_WORDS = ['0', 'off', 'f', 'false', 'n', 'no'];

interface EventsQuery {
  filter: EventFilter;
  waitMs: number;
  sse: boolean;
}

/** Reads the query as Parlant does; every bad value is reported in one 422. */
function parseQuery(query: Record<string, string | undefined>): EventsQuery {
  const problems: ValidationDetail[] = [];
  const rawSse = query['sse']?.toLowerCase();
  const sse = rawSse !== undefined && TRUE_WORDS.includes(rawSse);
  if (rawSse !== undefined && !sse && !FALSE_WORDS.includes(rawSse)) {
    problems.push({ loc: ['query', 'sse'], msg: 'sse must be a boolean (true or false)', type: 'bool_parsing' });
  }
  const integer = (name: string, min: number, max: number): number | undefined => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push({ loc: ['query', name], msg: `${name} must be an integer from ${min} to ${max}`, type: 'value_error' });
      return undefined;
    }
    return value;
  };
  const minOffset = integer('min_offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  // Parlant waits 60 s by default; Tenet's long-poll answers at once unless asked to wait.
  const waitSecs = integer('wait_for_data', 0, MAX_WAIT_SECS) ?? (sse ? SSE_DEFAULT_WAIT_SECS : 0);
  const kinds = query['kinds']
    ?.split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const kind of kinds ?? []) {
    if (!(LISTED_KINDS as readonly string[]).includes(kind))
      problems.push({
        loc: ['query', 'kinds'],
        msg: `kinds must be a comma-separated list of ${LISTED_KINDS.join(', ')}; got "${kind}"`,
        type: 'value_error',
      });
  }
  const source = query['source'];
  if (source !== undefined && !(EVENT_SOURCES as readonly string[]).includes(source)) {
    problems.push({ loc: ['query', 'source'], msg: `source must be one of ${EVENT_SOURCES.join(', ')}`, type: 'value_error' });
  }
  if (problems.length > 0) throw new UnprocessableEntity(problems);
  const filter: EventFilter = { minOffset };
  if (kinds?.length) filter.kinds = kinds;
  if (source !== undefined) filter.source = source;
  if (query['correlation_id'] !== undefined) filter.correlationId = query['correlation_id'];
  if (query['trace_id'] !== undefined) filter.traceId = query['trace_id'];
  return { filter, waitMs: waitSecs * 1000, sse };
}

@Controller('sessions/:sessionId/events')
export class EventsHttpController implements OnModuleDestroy {
  /** Aborted at shutdown, to end open event streams so that the HTTP server can close. */
  private readonly shutdown = new AbortController();

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: SessionEventsService,
    private readonly timers: SessionTimers,
    private readonly turns: TurnService,
    private readonly agents: AgentsRepository,
  ) {
    setMaxListeners(0, this.shutdown.signal); // one listener per open stream; no leak warning past 10
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(
    @Param('sessionId') sessionId: string,
    @Body() body: EventCreationDto,
    @Headers('idempotency-key') keyHeader?: string,
  ): Promise<EventView> {
    const notPostable = clientPostingProblems(body);
    if (notPostable.length > 0) throw new UnprocessableEntity(notPostable);
    const idempotency = idempotencyKeyOf(keyHeader, body);
    if (idempotency === 'invalid') throw malformedKey();
    const session = await this.sessions.get(sessionId);
    if (!session) throw notFound('session', sessionId);
    if (session.lifecycle.status === 'Completed' || session.lifecycle.status === 'Expired') {
      throw new HttpException(
        { detail: `session ${sessionId} is ${session.lifecycle.status.toLowerCase()} and accepts no events` },
        HttpStatus.CONFLICT,
      );
    }
    // An archived agent is read-only — its sessions keep their history but take no new events.
    if ((await this.agents.get(session.view.agent_id))?.status === 'archived') {
      throw new HttpException({ detail: `agent ${session.view.agent_id} is archived: its sessions are read-only` }, HttpStatus.CONFLICT);
    }
    let event: EventView;
    if (idempotency) {
      const once = await this.events.appendOnce(sessionId, body, idempotency).catch((error: unknown) => {
        if (error instanceof IdempotencyKeyReusedError) throw reusedKey(error);
        throw error;
      });
      // A retry gets the first answer; the first request already recorded activity and started the turn.
      if (once.replayed) return once.event;
      event = once.event;
    } else {
      event = await this.events.append(sessionId, body);
    }
    if (body.source === 'customer' || body.source === 'customer_ui') await this.timers.recordActivity(sessionId);
    // A customer message starts a turn (Parlant's behaviour); human-agent messages and custom events do not.
    if (body.kind === 'message' && body.source === 'customer' && session.view.mode === 'auto') this.turns.start(sessionId, event);
    return event;
  }

  /**
   * Parlant's long-poll: returns at once when matching events exist, else waits up to wait_for_data seconds,
   * then 504. With `sse=true`, Parlant's Server-Sent Events instead (see `sessionEventStream`): every matching
   * event from min_offset as a `data: <event JSON>` frame, then each new one as it is appended, until
   * wait_for_data (default 60) passes without one or the client goes away. Bad parameters (422) and an
   * unknown session (404) are answered as JSON before any stream starts.
   */
  @Get()
  async list(@Param('sessionId') sessionId: string, @Query() query: Record<string, string | undefined>): Promise<EventView[] | Response> {
    const { filter, waitMs, sse } = parseQuery(query);
    const session = await this.sessions.get(sessionId);
    if (!session) throw notFound('session', sessionId);
    if (sse) {
      // A web Response: Nest sends its stream as it is read, and cancels it when the client disconnects.
      const body = sessionEventStream(this.events, sessionId, filter, { idleMs: waitMs, signal: this.shutdown.signal });
      return new Response(body, { status: HttpStatus.OK, headers: EVENT_STREAM_HEADERS });
    }
    // The record just read serves the first read of the events (not read twice per poll).
    const found = await this.events.list(sessionId, filter, waitMs, undefined, session);
    if (found === undefined) throw new HttpException({ detail: 'Request timed out' }, HttpStatus.GATEWAY_TIMEOUT);
    return found;
  }

  onModuleDestroy(): void {
    this.shutdown.abort();
  }
}
