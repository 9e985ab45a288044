import { createHash } from 'node:crypto';
import { Body, Controller, Delete, Get, Headers, HttpCode, HttpException, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ConcurrencyError } from '@tenet/event-store';
import { defaultSessionConfig, initialSessionState, SessionDomainError } from '@tenet/session-domain';
import { AgentsRepository } from '../agents/agents.repository.js';
import { CustomersRepository } from '../customers/customers.repository.js';
import { IdempotencyKeyReusedError, idempotencyKeyOf, malformedKey, reusedKey, type IdempotencyKey } from '../http/idempotency.js';
import { notFound, UnprocessableEntity } from '../http/validation.js';
import { newId } from '../ids.js';
import { SessionCreationDto, type SessionView } from './session.dto.js';
import { SessionsRepository, type SessionRecord } from './sessions.repository.js';
import { SessionTimers } from './session-timers.js';

const toView = (record: SessionRecord): SessionView => ({ ...record.view, state: record.lifecycle.status });

const keyedSessionId = (idempotency: IdempotencyKey): string => `s_${createHash('sha256').update(`POST /sessions\n${idempotency.key}`).digest('hex').slice(0, 32)}`;

@Controller('sessions')
export class SessionsHttpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly agents: AgentsRepository,
    private readonly customers: CustomersRepository,
    private readonly timers: SessionTimers,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Creating again with the same key returns the session the first request created; the same key with a different body is a 422. The key is kept in the event log.',
  })
  async create(@Body() body: SessionCreationDto, @Headers('idempotency-key') keyHeader?: string): Promise<SessionView> {
    const idempotency = idempotencyKeyOf(keyHeader, body);
    if (idempotency === 'invalid') throw malformedKey();
    if (!(await this.agents.get(body.agent_id))) {
      throw new UnprocessableEntity([{ loc: ['body', 'agent_id'], msg: `agent_id must reference an existing agent; ${body.agent_id} does not exist`, type: 'value_error.reference' }]);
    }
    // As in Parlant, a session belongs to an existing customer; the guest exists without being created.
    if (body.customer_id !== undefined && !(await this.customers.get(body.customer_id))) {
      throw new UnprocessableEntity([{ loc: ['body', 'customer_id'], msg: `customer_id must reference an existing customer (or be left out for the guest); ${body.customer_id} does not exist`, type: 'value_error.reference' }]);
    }
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
      config: { ...defaultSessionConfig, ...(body.config ?? {}) },
      ...(body.expires_at !== undefined ? { expires_at: new Date(body.expires_at).toISOString() } : {}),
    };
    try {
      const { record, started } = await this.sessions.open(view, now.getTime(), idempotency);
      await this.timers.dispatch(initialSessionState(), started);
      return toView(record);
    } catch (error) {
      if (idempotency && error instanceof ConcurrencyError) return this.replay(view.id, idempotency);
      if (error instanceof SessionDomainError && error.code === 'SESSION.INVALID_CONFIG') {
        throw new UnprocessableEntity(error.violations.map((v) => ({ loc: ['body', ...v.field.split('.')], msg: `${v.field} ${v.rule}`, type: 'value_error' })));
      }
      throw error;
    }
  }

  /** The answer to a retried keyed create: the session the key first created, if the body is the same. */
  private async replay(id: string, idempotency: IdempotencyKey): Promise<SessionView> {
    const first = await this.sessions.openedWith(id);
    if (first?.fingerprint !== idempotency.fingerprint) throw reusedKey(new IdempotencyKeyReusedError(idempotency.key));
    const record = await this.sessions.get(id);
    if (!record) throw new HttpException({ detail: `the session created with Idempotency-Key "${idempotency.key}" was deleted` }, HttpStatus.CONFLICT);
    return toView(record);
  }

  @Get()
  async list(): Promise<SessionView[]> {
    return (await this.sessions.list()).map(toView);
  }

  @Get(':sessionId')
  async read(@Param('sessionId') id: string): Promise<SessionView> {
    const record = await this.sessions.get(id);
    if (!record) throw notFound('session', id);
    return toView(record);
  }

  @Delete(':sessionId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('sessionId') id: string): Promise<void> {
    const record = await this.sessions.get(id);
    if (!record) throw notFound('session', id);
    await this.sessions.delete(id, record);
  }
}
