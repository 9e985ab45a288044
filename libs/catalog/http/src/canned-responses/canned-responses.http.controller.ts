import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound, httpCall } from '@tenet/edge';
import {
  CannedResponseCreationDto,
  CannedResponseUpdateDto,
  type CannedResponseView,
  CannedResponsesRepository,
} from '@tenet/catalog-data-access';

/** Parlant's `/canned_responses` (src/parlant/api/canned_responses.py): create, list (by tags), read, PATCH, delete. */
@Controller('canned_responses')
export class CannedResponsesHttpController {
  constructor(private readonly canned: CannedResponsesRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: CannedResponseCreationDto): Promise<CannedResponseView> {
    return httpCall(() => this.canned.create(body, new Date()));
  }

  /** `?tags=a&tags=b` (Parlant) or `?tags=a,b`: responses carrying any of them. */
  @Get()
  list(@Query('tags') tags?: string | string[]): Promise<CannedResponseView[]> {
    const tagIds = (Array.isArray(tags) ? tags : tags ? tags.split(',') : []).filter(Boolean);
    return this.canned.list({ tagIds });
  }

  @Get(':cannedResponseId')
  async read(@Param('cannedResponseId') id: string): Promise<CannedResponseView> {
    return (await this.canned.get(id)) ?? Promise.reject(notFound('canned response', id));
  }

  @Patch(':cannedResponseId')
  async update(@Param('cannedResponseId') id: string, @Body() body: CannedResponseUpdateDto): Promise<CannedResponseView> {
    return (await httpCall(() => this.canned.update(id, body))) ?? Promise.reject(notFound('canned response', id));
  }

  @Delete(':cannedResponseId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('cannedResponseId') id: string): Promise<void> {
    if (!(await this.canned.delete(id))) throw notFound('canned response', id);
  }
}
