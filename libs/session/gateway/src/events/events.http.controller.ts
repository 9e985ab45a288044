import { Body, Controller, Get, HttpCode, HttpException, HttpStatus, Param, Post, Query, Req, Res } from '@nestjs/common';
import { notFound, UnprocessableEntity, type ValidationDetail } from '../http/validation.js';
import { SessionTimers } from '../sessions/session-timers.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { TurnService } from '../turns/turn.service.js';
import { EVENT_KINDS, EVENT_SOURCES, EventCreationDto, type EventView } from './event.dto.js';
import { SessionEventsService, type EventFilter } from './session-events.service.js';

const MAX_WAIT_SECS = 300;

/** The parts of Express's request and response the streaming path uses (no @types/express dependency). */
interface Request {
  on(event: 'close', listener: () => void): unknown;
}
interface Response {
  status(code: number): Response;
  set(headers: Record<string, string>): Response;
  json(body: unknown): unknown;
  flushHeaders(): void;
  write(chunk: string): boolean;
  end(): unknown;
}

function parseQuery(query: Record<string, string | undefined>): { filter: EventFilter; waitMs: number } {
  const problems: ValidationDetail[] = [];
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
  const waitSecs = integer('wait_for_data', 0, MAX_WAIT_SECS) ?? 0;
  const kinds = query['kinds']?.split(',').map((k) => k.trim()).filter(Boolean);
  for (const kind of kinds ?? []) {
    if (!(EVENT_KINDS as readonly string[]).includes(kind)) problems.push({ loc: ['query', 'kinds'], msg: `kinds must be a comma-separated list of ${EVENT_KINDS.join(', ')}; got "${kind}"`, type: 'value_error' });
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
  return { filter, waitMs: waitSecs * 1000 };
}

@Controller('sessions/:sessionId/events')
export class EventsHttpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: SessionEventsService,
    private readonly timers: SessionTimers,
    private readonly turns: TurnService,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Param('sessionId') sessionId: string, @Body() body: EventCreationDto): Promise<EventView> {
    const session = await this.sessions.get(sessionId);
    if (!session) throw notFound('session', sessionId);
    if (session.lifecycle.status === 'Completed' || session.lifecycle.status === 'Expired') {
      throw new HttpException({ detail: `session ${sessionId} is ${session.lifecycle.status.toLowerCase()} and accepts no events` }, HttpStatus.CONFLICT);
    }
    const event = await this.events.append(sessionId, body);
    if (body.source === 'customer' || body.source === 'customer_ui') await this.timers.recordActivity(sessionId);
    // A customer message starts a turn (Parlant's behaviour); human-agent messages and custom events do not.
    if (body.kind === 'message' && body.source === 'customer' && session.view.mode === 'auto') this.turns.start(sessionId, event);
    return event;
  }

  /**
   * Parlant's long-poll: returns at once when matching events exist, else waits up to wait_for_data seconds,
   * then 504. With `sse=true`, Parlant's Server-Sent Events instead: every matching event from min_offset as a
   * `data: <event JSON>` frame, then each new one as it is appended, until wait_for_data passes without one
   * (then the stream ends) or the client goes away. Waiting is woken by the bus, never by polling the store.
   */
  @Get()
  async list(@Param('sessionId') sessionId: string, @Query() query: Record<string, string | undefined>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const sse = query['sse'] === 'true' || query['sse'] === '1';
    const { filter, waitMs } = parseQuery({ ...query, ...(sse && query['wait_for_data'] === undefined ? { wait_for_data: '60' } : {}) });
    if (!(await this.sessions.get(sessionId))) throw notFound('session', sessionId);
    if (!sse) {
      const found = await this.events.list(sessionId, filter, waitMs);
      if (found === undefined) throw new HttpException({ detail: 'Request timed out' }, HttpStatus.GATEWAY_TIMEOUT);
      res.status(HttpStatus.OK).json(found);
      return;
    }
    const gone = new AbortController();
    req.on('close', () => gone.abort());
    res.status(HttpStatus.OK).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    let minOffset = filter.minOffset;
    while (!gone.signal.aborted) {
      const found = await this.events.list(sessionId, { ...filter, minOffset }, waitMs, gone.signal);
      if (!found || found.length === 0) break;
      for (const event of found) {
        res.write(`data: ${JSON.stringify(event)}\n\n`);
        minOffset = Math.max(minOffset, event.offset + 1);
      }
    }
    res.end();
  }
}
