import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { notFound, UnprocessableEntity, httpCall, WorkspaceDirectory } from '@tenet/edge';
import {
  ContextVariableCreationDto,
  ContextVariableUpdateDto,
  ContextVariableValueDto,
  type ContextVariableReadResult,
  type ContextVariableValueView,
  type ContextVariableView,
  ContextVariablesRepository,
} from '@tenet/catalog-data-access';

function parseBoolean(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UnprocessableEntity([{ loc: ['query', name], msg: `${name} must be true or false`, type: 'type_error.bool' }]);
}

@Controller('context-variables')
export class ContextVariablesHttpController {
  constructor(
    private readonly variables: ContextVariablesRepository,
    private readonly workspaces: WorkspaceDirectory,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: ContextVariableCreationDto): Promise<ContextVariableView> {
    return httpCall(() => this.variables.create(body, new Date()));
  }

  @Get()
  list(@Query('tag_id') tagId?: string): Promise<ContextVariableView[]> {
    return this.variables.list({ tagId });
  }

  @Delete()
  @HttpCode(HttpStatus.NO_CONTENT)
  async removeMany(@Req() http: Request, @Query('tag_id') tagId?: string): Promise<void> {
    // The filter selects among the caller's workspace's variables only (it must not reach other workspaces': docs/data-model.md#workspaces).
    const own = await this.workspaces.visibleTo(http, 'context-variables', await this.variables.list({ tagId }), (v) => v.id);
    await this.variables.deleteMany(own.map((v) => v.id));
  }

  /** Parlant returns the variable with its values by default (`include_values=true`). */
  @Get(':variableId')
  async read(@Param('variableId') id: string, @Query('include_values') includeValues?: string): Promise<ContextVariableReadResult> {
    return (
      (await this.variables.read(id, parseBoolean(includeValues, 'include_values', true))) ??
      Promise.reject(notFound('context variable', id))
    );
  }

  @Patch(':variableId')
  async update(@Param('variableId') id: string, @Body() body: ContextVariableUpdateDto): Promise<ContextVariableView> {
    return (await httpCall(() => this.variables.update(id, body))) ?? Promise.reject(notFound('context variable', id));
  }

  @Delete(':variableId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('variableId') id: string): Promise<void> {
    if (!(await this.variables.delete(id))) throw notFound('context variable', id);
  }

  @Get(':variableId/:key')
  async readValue(@Param('variableId') id: string, @Param('key') key: string): Promise<ContextVariableValueView> {
    return (await this.variables.getValue(id, key)) ?? Promise.reject(notFound('context variable value', `${id}/${key}`));
  }

  @Put(':variableId/:key')
  async setValue(
    @Param('variableId') id: string,
    @Param('key') key: string,
    @Body() body: ContextVariableValueDto,
  ): Promise<ContextVariableValueView> {
    const { data, ...provenance } = body;
    return (
      (await httpCall(() => this.variables.setValue(id, key, data, new Date(), provenance))) ??
      Promise.reject(notFound('context variable', id))
    );
  }

  @Delete(':variableId/:key')
  @HttpCode(HttpStatus.NO_CONTENT)
  async removeValue(@Param('variableId') id: string, @Param('key') key: string): Promise<void> {
    if (!(await this.variables.deleteValue(id, key))) throw notFound('context variable value', `${id}/${key}`);
  }
}
