import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound } from '../http/validation.js';
import { httpCall } from '../tags/rule-violation.js';
import { GuidelineCreationDto, GuidelineUpdateDto, type GuidelineView, type GuidelineWithRelationships } from './guideline.dto.js';
import { GuidelinesRepository } from './guidelines.repository.js';

const withRelationships = (guideline: GuidelineView): GuidelineWithRelationships => ({ guideline, relationships: [], tool_associations: [] });

@Controller('guidelines')
export class GuidelinesHttpController {
  constructor(private readonly guidelines: GuidelinesRepository) {}

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
    return guideline ? withRelationships(guideline) : Promise.reject(notFound('guideline', id));
  }

  @Patch(':guidelineId')
  async update(@Param('guidelineId') id: string, @Body() body: GuidelineUpdateDto): Promise<GuidelineWithRelationships> {
    const guideline = await httpCall(() => this.guidelines.update(id, body));
    return guideline ? withRelationships(guideline) : Promise.reject(notFound('guideline', id));
  }

  @Delete(':guidelineId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('guidelineId') id: string): Promise<void> {
    if (!(await this.guidelines.delete(id))) throw notFound('guideline', id);
  }
}
