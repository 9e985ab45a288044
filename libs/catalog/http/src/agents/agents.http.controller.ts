import { Body, ConflictException, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { notFound, httpCall } from '@tenet/edge';
import { AgentCreationDto, AgentUpdateDto, type AgentView, AgentArchivedError, AgentsRepository } from '@tenet/catalog-data-access';

@Controller('agents')
export class AgentsHttpController {
  constructor(private readonly agents: AgentsRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: AgentCreationDto): Promise<AgentView> {
    return httpCall(() => this.agents.create(body, new Date()));
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
    try {
      return (await httpCall(() => this.agents.update(id, body, new Date()))) ?? Promise.reject(notFound('agent', id));
    } catch (error) {
      if (error instanceof AgentArchivedError) throw new ConflictException({ detail: error.message });
      throw error;
    }
  }

  @Delete(':agentId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('agentId') id: string): Promise<void> {
    if (!(await this.agents.delete(id))) throw notFound('agent', id);
  }
}
