import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound, httpCall } from '@tenet/edge';
import { TermCreationDto, TermUpdateDto, type TermView, TermsRepository } from '@tenet/catalog-data-access';

/** Parlant's glossary (`client.glossary.*Term`) lives at `/terms`. */
@Controller('terms')
export class TermsHttpController {
  constructor(private readonly terms: TermsRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: TermCreationDto): Promise<TermView> {
    return httpCall(() => this.terms.create(body, new Date()));
  }

  @Get()
  list(@Query('tag_id') tagId?: string): Promise<TermView[]> {
    return this.terms.list({ tagId });
  }

  @Get(':termId')
  async read(@Param('termId') id: string): Promise<TermView> {
    return (await this.terms.get(id)) ?? Promise.reject(notFound('term', id));
  }

  @Patch(':termId')
  async update(@Param('termId') id: string, @Body() body: TermUpdateDto): Promise<TermView> {
    return (await httpCall(() => this.terms.update(id, body))) ?? Promise.reject(notFound('term', id));
  }

  @Delete(':termId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('termId') id: string): Promise<void> {
    if (!(await this.terms.delete(id))) throw notFound('term', id);
  }
}
