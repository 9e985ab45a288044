import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { notFound } from '../http/validation.js';
import { AgentCreationDto, AgentUpdateDto, type AgentView } from './agent.dto.js';
import { AgentIdTakenError, AgentsRepository } from './agents.repository.js';

@Controller('agents')
export class AgentsHttpController {
  constructor(private readonly agents: AgentsRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: AgentCreationDto): Promise<AgentView> {
    try {
      return await this.agents.create(body, new Date());
    } catch (error) {
      if (error instanceof AgentIdTakenError) {
        throw new HttpException({ detail: [{ loc: ['body', 'id'], msg: error.message, type: 'value_error.unique' }] }, HttpStatus.UNPROCESSABLE_ENTITY);
      }
      throw error;
    }
  }

  @Get()
  list(): Promise<AgentView[]> {
    return this.agents.list();
  }

  @Get(':agentId')
  async read(@Param('agentId') id: string): Promise<AgentView> {
    return (await this.agents.get(id)) ?? Promise.reject(notFound('agent', id));
  }

  @Patch(':agentId')
  async update(@Param('agentId') id: string, @Body() body: AgentUpdateDto): Promise<AgentView> {
    return (await this.agents.update(id, body)) ?? Promise.reject(notFound('agent', id));
  }

  @Delete(':agentId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('agentId') id: string): Promise<void> {
    if (!(await this.agents.delete(id))) throw notFound('agent', id);
  }
}
