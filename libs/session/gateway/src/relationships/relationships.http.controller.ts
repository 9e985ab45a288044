import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { notFound, UnprocessableEntity } from '../http/validation.js';
import { httpCall } from '../tags/rule-violation.js';
import { TagsRepository } from '../tags/tags.repository.js';
import { RELATIONSHIP_KINDS, RelationshipCreationDto, type Endpoint, type RelationshipRecord } from './relationship.dto.js';
import { RelationshipsRepository } from './relationships.repository.js';

/** Parlant's `/relationships`: the wire shape names each end as `source_guideline`/`source_tag` (and targets). */
@Controller('relationships')
export class RelationshipsHttpController {
  constructor(
    private readonly relationships: RelationshipsRepository,
    private readonly guidelines: GuidelinesRepository,
    private readonly tags: TagsRepository,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: RelationshipCreationDto): Promise<Record<string, unknown>> {
    return this.toWire(await httpCall(() => this.relationships.create(body, new Date())));
  }

  @Get()
  async list(@Query('kind') kind?: string, @Query('guideline_id') guidelineId?: string, @Query('tag_id') tagId?: string, @Query('indirect') indirect?: string): Promise<Record<string, unknown>[]> {
    if (kind !== undefined && !(RELATIONSHIP_KINDS as readonly string[]).includes(kind)) {
      throw new UnprocessableEntity([{ loc: ['query', 'kind'], msg: `kind must be one of ${RELATIONSHIP_KINDS.join(', ')}`, type: 'value_error' }]);
    }
    const found = await this.relationships.list({ ...(kind ? { kind } : {}), ...(guidelineId ? { guidelineId } : {}), ...(tagId ? { tagId } : {}), indirect: indirect !== 'false' });
    return Promise.all(found.map((r) => this.toWire(r)));
  }

  @Get(':relationshipId')
  async read(@Param('relationshipId') id: string): Promise<Record<string, unknown>> {
    const found = await this.relationships.get(id);
    if (!found) throw notFound('relationship', id);
    return this.toWire(found);
  }

  @Delete(':relationshipId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('relationshipId') id: string): Promise<void> {
    if (!(await this.relationships.delete(id))) throw notFound('relationship', id);
  }

  private async toWire(r: RelationshipRecord): Promise<Record<string, unknown>> {
    const end = async (side: 'source' | 'target', e: Endpoint): Promise<Record<string, unknown>> => {
      if (e.type === 'tag') {
        const tag = await this.tags.get(e.id);
        return { [`${side}_tag`]: tag ? { id: tag.id, name: tag.name } : { id: e.id, name: e.id } };
      }
      const g = await this.guidelines.get(e.id);
      return { [`${side}_guideline`]: g ? { id: g.id, condition: g.condition, action: g.action ?? null, enabled: g.enabled, tags: g.tags, metadata: g.metadata, priority: g.priority } : { id: e.id } };
    };
    return { id: r.id, kind: r.kind, ...(await end('source', r.source)), ...(await end('target', r.target)) };
  }
}
