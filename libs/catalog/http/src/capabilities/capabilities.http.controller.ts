import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound, httpCall } from '@tenet/edge';
import { CapabilitiesRepository, CapabilityCreationDto, CapabilityUpdateDto, type CapabilityView } from '@tenet/catalog-data-access';

/** Parlant's capabilities: what the agent can offer; the most relevant ones inform each reply. */
@Controller('capabilities')
export class CapabilitiesHttpController {
  constructor(private readonly capabilities: CapabilitiesRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: CapabilityCreationDto): Promise<CapabilityView> {
    return httpCall(() => this.capabilities.create(body, new Date()));
  }

  @Get()
  list(@Query('tag_id') tagId?: string): Promise<CapabilityView[]> {
    return this.capabilities.list({ tagId });
  }

  @Get(':capabilityId')
  async read(@Param('capabilityId') id: string): Promise<CapabilityView> {
    return (await this.capabilities.get(id)) ?? Promise.reject(notFound('capability', id));
  }

  @Patch(':capabilityId')
  async update(@Param('capabilityId') id: string, @Body() body: CapabilityUpdateDto): Promise<CapabilityView> {
    return (await httpCall(() => this.capabilities.update(id, body))) ?? Promise.reject(notFound('capability', id));
  }

  @Delete(':capabilityId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('capabilityId') id: string): Promise<void> {
    if (!(await this.capabilities.delete(id))) throw notFound('capability', id);
  }
}
