import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound, httpCall } from '@tenet/edge';
import {
  JourneyCatalog,
  parseServiceToolId,
  RelationshipsRepository,
  GuidelineCreationDto,
  GuidelineUpdateDto,
  type GuidelineView,
  type GuidelineWithRelationships,
  GuidelinesRepository,
} from '@tenet/catalog-data-access';
import { AGENT_TOOLS_SERVICE } from '../services/services.http.controller.js';

@Controller('guidelines')
export class GuidelinesHttpController {
  constructor(
    private readonly guidelines: GuidelinesRepository,
    private readonly relationships: RelationshipsRepository,
    private readonly journeys: JourneyCatalog,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: GuidelineCreationDto): Promise<GuidelineView> {
    return httpCall(() => this.guidelines.create(body, new Date()));
  }

  @Get()
  list(@Query('tag_id') tagId?: string): Promise<GuidelineView[]> {
    return this.guidelines.list({ tagId });
  }

  @Get(':guidelineId')
  async read(@Param('guidelineId') id: string): Promise<GuidelineWithRelationships> {
    const guideline = await this.guidelines.get(id);
    return guideline ? this.withRelationships(guideline) : Promise.reject(notFound('guideline', id));
  }

  @Patch(':guidelineId')
  async update(@Param('guidelineId') id: string, @Body() body: GuidelineUpdateDto): Promise<GuidelineWithRelationships> {
    const guideline = await httpCall(() => this.guidelines.update(id, body));
    return guideline ? this.withRelationships(guideline) : Promise.reject(notFound('guideline', id));
  }

  /** A deleted guideline takes its relationships and journey references along, so none points at nothing. */
  @Delete(':guidelineId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('guidelineId') id: string): Promise<void> {
    if (!(await this.guidelines.delete(id))) throw notFound('guideline', id);
    await this.relationships.deleteTouching({ type: 'guideline', id });
    await this.journeys.forgetGuideline(id, new Date());
  }

  /** Parlant's read answer: relationships direct and indirect, and one tool association per tool the guideline names. */
  private async withRelationships(guideline: GuidelineView): Promise<GuidelineWithRelationships> {
    const relationships = await this.relationships.list({ guidelineId: guideline.id, indirect: true });
    return {
      guideline,
      relationships: await Promise.all(relationships.map((r) => this.relationships.toWire(r))),
      tool_associations: guideline.tools.map((tool) => ({
        id: `${guideline.id}:${tool}`,
        guideline_id: guideline.id,
        tool_id: parseServiceToolId(tool) ?? { service_name: AGENT_TOOLS_SERVICE, tool_name: tool },
      })),
    };
  }
}
