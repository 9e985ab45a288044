import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { checkCoherence, type CoherenceGuideline } from '@tenet/matching-domain';
import { EVENT_STORE, SCHEDULER } from '@tenet/platform-runtime';
import type { Scheduler } from '@tenet/scheduling';
import { crudEvolve, ResourceStreams } from '../catalog/resource-streams.js';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { newId } from '../ids.js';
import { assertNoViolations, violation } from '../tags/rule-violation.js';
import type { EvaluationCreationDto, EvaluationRecord, EvaluationView, InvoiceView, PayloadDto } from './evaluation.dto.js';

const QUEUE = 'evaluations';
/** How often a waiting GET re-reads the evaluation (the job may run in another process). */
const WAIT_POLL_MS = 100;

const viewOf = ({ payloads: _payloads, ...view }: EvaluationRecord): EvaluationView => view;

const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));

/**
 * Parlant's evaluations: coherence checks of proposed guidelines against the existing ones and each other
 * (contradictions, overlaps; `checkCoherence` in the matching domain), run in the background on the scheduling
 * port (BullMQ in distributed mode, in-process all-in-one). Each evaluated payload is recorded as it is done,
 * so `progress` moves and a retried job resumes where the previous attempt stopped.
 */
@Injectable()
export class EvaluationsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(EvaluationsService.name);
  private readonly streams: ResourceStreams<EvaluationRecord>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    private readonly guidelines: GuidelinesRepository,
  ) {
    this.streams = new ResourceStreams(store, 'evaluation-', 'Evaluation', crudEvolve<EvaluationRecord>('Evaluation'));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<{ evaluationId: string }>(QUEUE, (job) => this.run(job.data.evaluationId), {
      concurrency: 2,
      onFailed: async (failure) => {
        await this.streams.update(failure.data.evaluationId, () => ({ status: 'failed', error: failure.error.message }));
      },
    });
  }

  async create(input: EvaluationCreationDto, now: Date): Promise<EvaluationView> {
    const problems = [];
    for (const [i, payload] of input.payloads.entries()) {
      const updated = payload.guideline.updated_id;
      if (payload.guideline.operation === 'update' && updated !== undefined && !(await this.guidelines.get(updated))) {
        problems.push(violation(['payloads', i, 'guideline', 'updated_id'], `updated_id must name an existing guideline; ${updated} does not exist`, 'value_error.reference'));
      }
    }
    assertNoViolations(problems);
    const id = newId();
    const record: EvaluationRecord = { id, status: 'pending', progress: 0, creation_utc: now.toISOString(), invoices: [], payloads: input.payloads };
    await this.streams.create(id, record);
    await this.scheduler.schedule({ queue: QUEUE, jobId: `evaluation-${id}`, data: { evaluationId: id }, attempts: 3, backoff: { type: 'exponential', delayMs: 500 } });
    return viewOf(record);
  }

  /** The evaluation; with `waitMs`, once it has completed or failed, or when the wait is over. */
  async get(id: string, waitMs = 0): Promise<EvaluationView | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const record = await this.streams.get(id);
      if (!record || record.status === 'completed' || record.status === 'failed' || Date.now() >= deadline) return record && viewOf(record);
      await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  private async run(evaluationId: string): Promise<void> {
    const record = await this.streams.get(evaluationId);
    if (!record || record.status === 'completed' || record.status === 'failed') return;
    const existing: CoherenceGuideline[] = (await this.guidelines.list()).map((g) => ({ id: g.id, condition: g.condition, action: g.action }));
    const invoices = [...record.invoices];
    for (let i = invoices.length; i < record.payloads.length; i++) {
      const payload = record.payloads[i] as PayloadDto;
      // Earlier payloads of the same evaluation count as existing guidelines too (Parlant checks them together).
      const earlier = record.payloads.slice(0, i).map((p, j) => ({ id: `payload:${j}`, condition: p.guideline.content.condition, action: p.guideline.content.action }));
      invoices.push(this.invoiceFor(payload, [...existing.filter((g) => g.id !== payload.guideline.updated_id), ...earlier]));
      const done = i + 1 === record.payloads.length;
      await this.streams.update(evaluationId, () => ({ invoices: [...invoices], progress: Math.round((100 * (i + 1)) / record.payloads.length), status: done ? 'completed' : 'running' }));
    }
    if (record.payloads.length === 0) await this.streams.update(evaluationId, () => ({ status: 'completed', progress: 100 }));
    this.logger.log(`evaluation ${evaluationId}: ${invoices.length} invoice(s), ${invoices.filter((inv) => !inv.approved).length} not approved`);
  }

  private invoiceFor(payload: PayloadDto, others: CoherenceGuideline[]): InvoiceView {
    const { content, updated_id } = payload.guideline;
    const coherence = checkCoherence({ id: updated_id ?? 'proposed', condition: content.condition, action: content.action }, others);
    return {
      payload,
      checksum: createHash('sha256').update(sortedJson(payload)).digest('hex'),
      approved: coherence.contradictions.length === 0,
      data: {
        guideline: {
          ...(content.action !== undefined ? { action_proposition: content.action } : {}),
          properties_proposition: { contradictions: coherence.contradictions, overlaps: coherence.overlaps },
        },
      },
    };
  }
}
