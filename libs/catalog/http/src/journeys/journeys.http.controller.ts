import { Body, Controller, Delete, Get, Header, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { journeyMermaid } from '@tenet/journeys-domain';
import { notFound, httpCall } from '@tenet/edge';
import {
  journeyDefinition,
  JourneyCatalog,
  JourneyCreationDto,
  JourneyUpdateDto,
  toJourneyView,
  type JourneyView,
  JourneysRepository,
} from '@tenet/catalog-data-access';

/** Parlant's `/journeys` (src/parlant/api/journeys.py) with Tenet's steps and transitions (docs/data-model.md#journeys). */
@Controller('journeys')
export class JourneysHttpController {
  constructor(
    private readonly catalog: JourneyCatalog,
    private readonly journeys: JourneysRepository,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: JourneyCreationDto): Promise<JourneyView> {
    return toJourneyView(await httpCall(() => this.catalog.create(body, new Date())));
  }

  @Get()
  async list(@Query('tag_id') tagId?: string): Promise<JourneyView[]> {
    return (await this.journeys.list({ tagId })).map(toJourneyView);
  }

  @Get(':journeyId')
  async read(@Param('journeyId') id: string): Promise<JourneyView> {
    const journey = await this.journeys.get(id);
    return journey ? toJourneyView(journey) : Promise.reject(notFound('journey', id));
  }

  @Get(':journeyId/mermaid')
  @Header('content-type', 'text/plain; charset=utf-8')
  async mermaid(@Param('journeyId') id: string): Promise<string> {
    const journey = await this.journeys.get(id);
    return journey ? journeyMermaid(journeyDefinition(journey)) : Promise.reject(notFound('journey', id));
  }

  @Patch(':journeyId')
  async update(@Param('journeyId') id: string, @Body() body: JourneyUpdateDto): Promise<JourneyView> {
    const journey = await httpCall(() => this.catalog.update(id, body, new Date()));
    return journey ? toJourneyView(journey) : Promise.reject(notFound('journey', id));
  }

  /** Also deletes the condition guidelines only this journey used, and the guidelines scoped to it (as Parlant does). */
  @Delete(':journeyId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('journeyId') id: string): Promise<void> {
    if (!(await this.catalog.delete(id))) throw notFound('journey', id);
  }
}
