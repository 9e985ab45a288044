import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { notFound, UnprocessableEntity, httpCall } from '@tenet/edge';
import { EvaluationCreationDto, type EvaluationView } from '@tenet/catalog-data-access';
import { EvaluationsService } from './evaluations.service.js';

/** Parlant's default wait for a GET of an unfinished evaluation, and Tenet's cap on it. */
const DEFAULT_WAIT_SECS = 60;
const MAX_WAIT_SECS = 300;

@Controller('evaluations')
export class EvaluationsHttpController {
  constructor(private readonly evaluations: EvaluationsService) {}

  /** Starts a background coherence check of the proposed guidelines; `progress` and `invoices` fill in as it runs. */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: EvaluationCreationDto): Promise<EvaluationView> {
    return httpCall(() => this.evaluations.create(body, new Date()));
  }

  /** The evaluation, waiting up to `wait_for_completion` seconds (Parlant's default 60) for it to finish. */
  @Get(':evaluationId')
  async read(@Param('evaluationId') id: string, @Query('wait_for_completion') wait?: string): Promise<EvaluationView> {
    if (wait !== undefined && (!/^\d+$/.test(wait) || Number(wait) > MAX_WAIT_SECS)) {
      throw new UnprocessableEntity([
        {
          loc: ['query', 'wait_for_completion'],
          msg: `wait_for_completion must be an integer from 0 to ${MAX_WAIT_SECS}`,
          type: 'value_error',
        },
      ]);
    }
    const seconds = wait === undefined ? DEFAULT_WAIT_SECS : Number(wait);
    return (await this.evaluations.get(id, seconds * 1000)) ?? Promise.reject(notFound('evaluation', id));
  }
}
