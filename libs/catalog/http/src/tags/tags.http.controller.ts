import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound } from '@tenet/edge';
import { TagCreationDto, TagUpdateDto, type TagView, TagsRepository } from '@tenet/catalog-data-access';

@Controller('tags')
export class TagsHttpController {
  constructor(private readonly tags: TagsRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: TagCreationDto): Promise<TagView> {
    return this.tags.create(body, new Date());
  }

  @Get()
  list(@Query('name') name?: string): Promise<TagView[]> {
    return this.tags.list({ name });
  }

  @Get(':tagId')
  async read(@Param('tagId') id: string): Promise<TagView> {
    return (await this.tags.get(id)) ?? Promise.reject(notFound('tag', id));
  }

  @Patch(':tagId')
  async update(@Param('tagId') id: string, @Body() body: TagUpdateDto): Promise<TagView> {
    return (await this.tags.update(id, body)) ?? Promise.reject(notFound('tag', id));
  }

  @Delete(':tagId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('tagId') id: string): Promise<void> {
    if (!(await this.tags.delete(id))) throw notFound('tag', id);
  }
}
