import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { IntentView } from '@tenet/intents-domain';
import { callerWorkspaceOf } from '@tenet/platform-runtime';
import { IntentCreationDto, IntentUpdateDto } from './intent.dto.js';
import { IntentIdTaken, IntentRuleViolation, IntentsRepository } from './intents.repository.js';

const notFound = (id: string): HttpException => new HttpException({ detail: `intent ${id} not found` }, HttpStatus.NOT_FOUND);

/** The repository's errors as the gateway answers them: 422 with FastAPI-style detail naming the field. */
async function httpCall<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof IntentRuleViolation) throw new HttpException({ detail: error.details }, HttpStatus.UNPROCESSABLE_ENTITY);
    if (error instanceof IntentIdTaken)
      throw new HttpException(
        { detail: [{ loc: ['body', 'id'], msg: error.message, type: 'value_error.unique' }] },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    throw error;
  }
}

/**
 * `/intents` (ADR 0031, a Tenet extension): create, list (`?tags=`), read, PATCH, delete. Workspace-scoped by the
 * host's edge like every catalog collection (ADR 0018): created intents are assigned to the caller's workspace,
 * lists show its own, and another workspace's id is a 404.
 */
@Controller('intents')
export class IntentsHttpController {
  constructor(private readonly intents: IntentsRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: IntentCreationDto, @Req() request: object): Promise<IntentView> {
    return httpCall(() => this.intents.create(body, new Date(), callerWorkspaceOf(request)));
  }

  /** `?tags=a&tags=b` or `?tags=a,b`: intents carrying any of them (`agent:<id>` for one agent's). */
  @Get()
  list(@Query('tags') tags?: string | string[]): Promise<IntentView[]> {
    return this.intents.list((Array.isArray(tags) ? tags : tags ? tags.split(',') : []).filter(Boolean));
  }

  @Get(':intentId')
  async read(@Param('intentId') id: string): Promise<IntentView> {
    return (await this.intents.get(id)) ?? Promise.reject(notFound(id));
  }

  @Patch(':intentId')
  async update(@Param('intentId') id: string, @Body() body: IntentUpdateDto, @Req() request: object): Promise<IntentView> {
    return (await httpCall(() => this.intents.update(id, body, callerWorkspaceOf(request)))) ?? Promise.reject(notFound(id));
  }

  @Delete(':intentId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('intentId') id: string): Promise<void> {
    if (!(await this.intents.delete(id))) throw notFound(id);
  }
}
