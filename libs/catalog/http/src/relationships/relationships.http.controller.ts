import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import {
  GuidelinesRepository,
  TagReferences,
  RELATIONSHIP_KINDS,
  RelationshipCreationDto,
  type RelationshipKindName,
  RelationshipsRepository,
} from '@tenet/catalog-data-access';
import { notFound, UnprocessableEntity, type ValidationDetail, httpCall } from '@tenet/edge';

const queryProblem = (field: string, msg: string): ValidationDetail => ({ loc: ['query', field], msg, type: 'value_error' });

/** Parlant's `/relationships` (src/parlant/api/relationships.py): create, list with filters, read, delete. */
@Controller('relationships')
export class RelationshipsHttpController {
  constructor(
    private readonly relationships: RelationshipsRepository,
    private readonly guidelines: GuidelinesRepository,
    private readonly tagRefs: TagReferences,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: RelationshipCreationDto): Promise<Record<string, unknown>> {
    return this.relationships.toWire(await httpCall(() => this.relationships.create(body, new Date())));
  }

  /** Parlant's query: `kind`, `indirect` (default true), and one of `guideline_id`, `tag_id` (`tool_id` is refused). */
  @Get()
  async list(
    @Query('kind') kind?: string,
    @Query('indirect') indirect?: string,
    @Query('guideline_id') guidelineId?: string,
    @Query('tag_id') tagId?: string,
    @Query('tool_id') toolId?: string,
  ): Promise<Record<string, unknown>[]> {
    const problems: ValidationDetail[] = [];
    if (kind !== undefined && !(RELATIONSHIP_KINDS as readonly string[]).includes(kind))
      problems.push(queryProblem('kind', `kind must be one of ${RELATIONSHIP_KINDS.join(', ')}`));
    if (indirect !== undefined && !['true', 'false'].includes(indirect))
      problems.push(queryProblem('indirect', 'indirect must be true or false'));
    if (toolId !== undefined)
      problems.push(
        queryProblem(
          'tool_id',
          "tool_id is not supported: Tenet's tools are defined on agents, and relationships join guidelines and tags",
        ),
      );
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    if (guidelineId !== undefined && !(await this.guidelines.get(guidelineId))) throw notFound('guideline', guidelineId);
    if (guidelineId === undefined && tagId !== undefined && (await this.tagRefs.missing(tagId))) throw notFound('tag', tagId);
    const found = await this.relationships.list({
      kind: kind as RelationshipKindName | undefined,
      guidelineId,
      tagId: guidelineId === undefined ? tagId : undefined,
      indirect: indirect !== 'false',
    });
    return Promise.all(found.map((r) => this.relationships.toWire(r)));
  }

  @Get(':relationshipId')
  async read(@Param('relationshipId') id: string): Promise<Record<string, unknown>> {
    const found = await this.relationships.get(id);
    if (!found) throw notFound('relationship', id);
    return this.relationships.toWire(found);
  }

  @Delete(':relationshipId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('relationshipId') id: string): Promise<void> {
    if (!(await this.relationships.delete(id))) throw notFound('relationship', id);
  }
}
