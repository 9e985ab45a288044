import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { defaultSessionConfig, initialSessionState, SessionDomainError } from '@tenet/session-domain';
import { AgentsRepository } from '../agents/agents.repository.js';
import { CustomersRepository } from '../customers/customers.repository.js';
import { notFound, UnprocessableEntity } from '../http/validation.js';
import { newId } from '../ids.js';
import { SessionCreationDto, type SessionView } from './session.dto.js';
import { SessionsRepository, type SessionRecord } from './sessions.repository.js';
import { SessionTimers } from './session-timers.js';

const toView = (record: SessionRecord): SessionView => ({ ...record.view, state: record.lifecycle.status });

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
  async create(@Body() body: SessionCreationDto): Promise<SessionView> {
    if (!(await this.agents.get(body.agent_id))) {
      throw new UnprocessableEntity([{ loc: ['body', 'agent_id'], msg: `agent_id must reference an existing agent; ${body.agent_id} does not exist`, type: 'value_error.reference' }]);
    }
    // As in Parlant, a session belongs to an existing customer; the guest exists without being created.
    if (body.customer_id !== undefined && !(await this.customers.get(body.customer_id))) {
      throw new UnprocessableEntity([{ loc: ['body', 'customer_id'], msg: `customer_id must reference an existing customer (or be left out for the guest); ${body.customer_id} does not exist`, type: 'value_error.reference' }]);
    }
    const now = new Date();
    const view = {
      id: newId(),
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
      const { record, started } = await this.sessions.open(view, now.getTime());
      this.timers.armSoon(initialSessionState(), started); // never waits on Redis: start-up re-arms from the log
      return toView(record);
    } catch (error) {
      if (error instanceof SessionDomainError && error.code === 'SESSION.INVALID_CONFIG') {
        throw new UnprocessableEntity(error.violations.map((v) => ({ loc: ['body', ...v.field.split('.')], msg: `${v.field} ${v.rule}`, type: 'value_error' })));
      }
      throw error;
    }
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
