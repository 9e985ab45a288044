import { createHash } from 'node:crypto';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  HttpException,
  HttpStatus,
  Param,
  Patch,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ConcurrencyError } from '@tenet/event-store';
import { decide, defaultSessionConfig, initialSessionState, SessionDomainError, type SessionEvent } from '@tenet/session-domain';
import { AgentsRepository, CustomersRepository, patchRecord, patchList } from '@tenet/catalog-data-access';
import {
  pageOf,
  pageRequestOf,
  withCursor,
  IdempotencyKeyReusedError,
  idempotencyKeyOf,
  malformedKey,
  reusedKey,
  type IdempotencyKey,
  notFound,
  UnprocessableEntity,
  newId,
  WorkspaceDirectory,
} from '@tenet/edge';
import { SessionCreationDto, SessionUpdateDto, type SessionPage } from './session.dto.js';
import {
  modeChange,
  SESSION_CONFIG_REVISION,
  sessionDeleted,
  SessionEventsService,
  SessionsRepository,
  SessionTimers,
  type SessionDetailView,
  type SessionFilter,
  type SessionRecord,
  type SessionRecordEvent,
  type SessionUpdated,
  type SessionView,
} from '@tenet/session-data-access';
import type { Request } from 'express';

/** The session's status from its lifecycle state (docs/data-model.md#sessions). */
function statusOf(record: SessionRecord): string {
  const lifecycle = record.lifecycle;
  if (lifecycle.status === 'Expired') return 'expired';
  if (lifecycle.status === 'Completed') return lifecycle.endReason === 'abandoned' ? 'abandoned' : 'completed';
  return 'active';
}

export const toSessionView = (record: SessionRecord): SessionView => {
  const { config_revision: _revision, ...view } = record.view;
  return { ...view, state: record.lifecycle.status, status: statusOf(record) };
};

const referenceError = (field: string, msg: string): UnprocessableEntity =>
  new UnprocessableEntity([{ loc: ['body', field], msg, type: 'value_error.reference' }]);

const keyedSessionId = (idempotency: IdempotencyKey): string =>
  `s_${createHash('sha256').update(`POST /sessions\n${idempotency.key}`).digest('hex').slice(0, 32)}`;

@Controller('sessions')
export class SessionsHttpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly agents: AgentsRepository,
    private readonly customers: CustomersRepository,
    private readonly timers: SessionTimers,
    private readonly workspaces: WorkspaceDirectory,
    private readonly events: SessionEventsService,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: SessionCreationDto, @Headers('idempotency-key') keyHeader?: string): Promise<SessionView> {
    const idempotency = idempotencyKeyOf(keyHeader, body);
    if (idempotency === 'invalid') throw malformedKey();
    await this.assertAgent(body.agent_id);
    if (body.customer_id !== undefined) await this.assertCustomer(body.customer_id);
    const now = new Date();
    const view = {
      // A keyed create has an id derived from the key: a retry finds the stream the first request opened.
      id: idempotency ? keyedSessionId(idempotency) : newId(),
      agent_id: body.agent_id,
      customer_id: body.customer_id ?? 'guest',
      creation_utc: now.toISOString(),
      ...(body.title !== undefined ? { title: body.title } : {}),
      mode: 'auto' as const,
      consumption_offsets: { client: 0 },
      metadata: body.metadata ?? {},
      labels: body.labels ?? [],
      config: { ...defaultSessionConfig, ...(body.config ?? {}), auto_extract: body.config?.auto_extract ?? null },
      config_revision: SESSION_CONFIG_REVISION,
      ...(body.expires_at !== undefined ? { expires_at: new Date(body.expires_at).toISOString() } : {}),
    };
    try {
      const { record, started } = await this.sessions.open(view, now.getTime(), idempotency);
      this.timers.armSoon(initialSessionState(), started); // never waits on Redis: start-up re-arms from the log
      return toSessionView(record);
    } catch (error) {
      if (idempotency && error instanceof ConcurrencyError) return this.replay(view.id, idempotency);
      if (error instanceof SessionDomainError && error.code === 'SESSION.INVALID_CONFIG') {
        throw new UnprocessableEntity(
          error.violations.map((v) => ({ loc: ['body', ...v.field.split('.')], msg: `${v.field} ${v.rule}`, type: 'value_error' })),
        );
      }
      throw error;
    }
  }

  /** The answer to a retried keyed create: the session the key first created, if the body is the same. */
  private async replay(id: string, idempotency: IdempotencyKey): Promise<SessionView> {
    const first = await this.sessions.openedWith(id);
    if (first?.fingerprint !== idempotency.fingerprint) throw reusedKey(new IdempotencyKeyReusedError(idempotency.key));
    const record = await this.sessions.get(id);
    if (!record)
      throw new HttpException({ detail: `the session created with Idempotency-Key "${idempotency.key}" was deleted` }, HttpStatus.CONFLICT);
    return toSessionView(record);
  }

  /**
   * Sessions of an agent and/or customer (and carrying every given label). Without `limit`/`cursor` the plain
   * list (Parlant's array); with either, one page `{items, total_count, has_more, next_cursor}`.
   */
  @Get()
  async list(
    @Req() http: Request,
    @Query('agent_id') agentId?: string,
    @Query('customer_id') customerId?: string,
    @Query('labels') labels?: string | string[],
    @Query('limit') limit?: string,
    @Query('cursor') cursor?: string,
    @Query('sort') sort?: string,
  ): Promise<SessionView[] | SessionPage> {
    const labelList =
      labels === undefined ? undefined : (Array.isArray(labels) ? labels : [labels]).flatMap((l) => l.split(',')).filter(Boolean);
    const request = limit === undefined && cursor === undefined ? undefined : pageRequestOf(limit, cursor, sort);
    // Only the caller's workspace's sessions, before paging: total_count and pages count only those. Filtered and
    // paged on the index; only the sessions answered are read from the log.
    const entries = await this.workspaces.visibleTo(
      http,
      'sessions',
      await this.sessions.entries({ agentId, customerId, labels: labelList }),
      (entry) => entry.id,
    );
    if (!request) return (await this.sessions.recordsOf(entries)).map(toSessionView);
    const page = await withCursor(() => pageOf(entries, (entry) => entry, request));
    return { ...page, items: (await this.sessions.recordsOf(page.items)).map(toSessionView) };
  }

  /** Parlant's bulk delete: every session of the agent and/or customer (at least one of them is required). */
  @Delete()
  @HttpCode(HttpStatus.NO_CONTENT)
  async removeMany(@Req() http: Request, @Query('agent_id') agentId?: string, @Query('customer_id') customerId?: string): Promise<void> {
    if (agentId === undefined && customerId === undefined) {
      throw new UnprocessableEntity([
        { loc: ['query', 'agent_id'], msg: 'agent_id or customer_id is required to delete sessions in bulk', type: 'missing' },
      ]);
    }
    const filter: SessionFilter = { agentId, customerId };
    // Only the caller's sessions: a customer (the shared guest) may have sessions with other workspaces' agents.
    for (const record of await this.workspaces.visibleTo(http, 'sessions', await this.sessions.list(filter), (r) => r.view.id))
      await this.deleteRecord(record.view.id);
  }

  /** The session, with what it has seen so far (last activity, messages, tokens, its journey): Tenet extensions. */
  @Get(':sessionId')
  async read(@Param('sessionId') id: string): Promise<SessionDetailView> {
    const record = await this.sessions.get(id);
    if (!record) throw notFound('session', id);
    return { ...toSessionView(record), ...(await this.events.activity(id, record.view.creation_utc)) };
  }

  /**
   * Parlant's update (mode, title, metadata set/unset, labels upsert/remove, consumption offsets, agent and
   * customer), plus Tenet's `status: completed | abandoned`, which ends the session (lifecycle state Completed).
   * Leaving `auto` is a hand-off: the agent replies to nothing until the session is back in `auto`.
   */
  @Patch(':sessionId')
  async update(@Param('sessionId') id: string, @Body() body: SessionUpdateDto): Promise<SessionView> {
    if (body.agent_id !== undefined) await this.assertAgent(body.agent_id);
    if (body.customer_id !== undefined) await this.assertCustomer(body.customer_id);
    const changed = await this.sessions.change(id, (record) => ({ events: this.decideUpdate(record, body), result: undefined }));
    if (!changed) throw notFound('session', id);
    const lifecycleEvents = changed.events.filter((e): e is SessionEvent => e.type === 'SessionCompleted');
    if (lifecycleEvents.length > 0) this.timers.armSoon(changed.before.lifecycle, lifecycleEvents);
    return this.read(id);
  }

  @Delete(':sessionId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('sessionId') id: string): Promise<void> {
    if (!(await this.deleteRecord(id))) throw notFound('session', id);
  }

  private decideUpdate(record: SessionRecord, body: SessionUpdateDto): SessionRecordEvent[] {
    const changes: SessionUpdated['data'] = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.agent_id !== undefined) changes.agent_id = body.agent_id;
    if (body.customer_id !== undefined) changes.customer_id = body.customer_id;
    if (body.metadata) changes.metadata = patchRecord(record.view.metadata, body.metadata);
    if (body.labels) changes.labels = patchList(record.view.labels, { add: body.labels.upsert, remove: body.labels.remove });
    if (body.consumption_offsets?.client !== undefined)
      changes.consumption_offsets = { ...record.view.consumption_offsets, client: body.consumption_offsets.client };
    const events: SessionRecordEvent[] = Object.keys(changes).length > 0 ? [{ type: 'SessionUpdated', data: changes }] : [];
    if (body.mode !== undefined) events.push(...modeChange(record, body.mode, 'api'));
    if (body.status !== undefined) {
      if (record.lifecycle.status === 'Completed' || record.lifecycle.status === 'Expired') {
        throw new HttpException({ detail: `session ${record.view.id} is already ${statusOf(record)}` }, HttpStatus.CONFLICT);
      }
      events.push(...decide({ type: 'CompleteSession', reason: body.status, now: Date.now() }, record.lifecycle));
    }
    return events;
  }

  /** Appends the session's tombstone (its streams stay in the log); false when it does not exist. */
  private async deleteRecord(id: string): Promise<boolean> {
    return (await this.sessions.change(id, (record) => ({ events: [sessionDeleted(record)], result: undefined }))) !== undefined;
  }

  /** As in Parlant, a session belongs to an existing customer; the guest exists without being created. */
  private async assertCustomer(customerId: string): Promise<void> {
    if (!(await this.customers.get(customerId))) {
      throw new UnprocessableEntity([
        {
          loc: ['body', 'customer_id'],
          msg: `customer_id must reference an existing customer (or be left out for the guest); ${customerId} does not exist`,
          type: 'value_error.reference',
        },
      ]);
    }
  }

  private async assertAgent(agentId: string): Promise<void> {
    const agent = await this.agents.get(agentId);
    if (!agent) throw referenceError('agent_id', `agent_id must reference an existing agent; ${agentId} does not exist`);
    // Only active agents take new sessions (an inactive one finishes those it has).
    if (agent.status !== 'active')
      throw new HttpException(
        { detail: `agent ${agentId} is ${agent.status} and accepts no new sessions; PATCH /agents/${agentId} {"status": "active"} first` },
        HttpStatus.CONFLICT,
      );
  }
}
