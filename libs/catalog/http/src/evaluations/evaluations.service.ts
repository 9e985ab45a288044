import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MATCHER_CHECK_COHERENCE_SUBJECT, type CheckCoherenceReplyV1, type CheckCoherenceRequestV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import type { MessageBus } from '@tenet/messaging';
import { traced, traceHeaders } from '@tenet/observability';
import { EVENT_STORE, MESSAGE_BUS, SCHEDULER } from '@tenet/platform-runtime';
import type { Scheduler } from '@tenet/scheduling';
import { EVALUATIONS_USAGE_ID } from '@tenet/metering-domain';
import { UsageStreamSink } from '@tenet/metering-http';
import { crudEvolve, ResourceStreams, newId, assertNoViolations, violation } from '@tenet/edge';
import {
  GuidelinesRepository,
  type EvaluationCreationDto,
  type EvaluationRecord,
  type EvaluationView,
  type InvoiceView,
  type PayloadDto,
} from '@tenet/catalog-data-access';

const QUEUE = 'evaluations';
/** Proposals judged per model call: a typical evaluation is one call; a large one advances `progress` per call. */
export const PROPOSALS_PER_CALL = 10;
/** How long one coherence call may take (a model reading every guideline), before the job is retried. */
const CALL_TIMEOUT_MS = 120_000;

interface Guideline {
  id: string;
  condition: string;
  action?: string;
}
type Findings = CheckCoherenceReplyV1['results'][number];
/** How often a waiting GET re-reads the evaluation (the job may run in another process). */
const WAIT_POLL_MS = 100;

const viewOf = ({ payloads: _payloads, ...view }: EvaluationRecord): EvaluationView => view;

const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );

/**
 * Parlant's evaluations: coherence checks of proposed guidelines against the existing ones and each other
 * (contradictions, overlaps), judged by the model through the guideline matcher (`check_coherence`, one call per
 * PROPOSALS_PER_CALL payloads; the offline provider judges lexically) and metered, run in the background on the
 * scheduling port (BullMQ in distributed mode, in-process all-in-one). Invoices are recorded after each call, so
 * `progress` moves and a retried job resumes where the previous attempt stopped.
 */
@Injectable()
export class EvaluationsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(EvaluationsService.name);
  private readonly streams: ResourceStreams<EvaluationRecord>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly guidelines: GuidelinesRepository,
    private readonly usage: UsageStreamSink,
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
        problems.push(
          violation(
            ['payloads', i, 'guideline', 'updated_id'],
            `updated_id must name an existing guideline; ${updated} does not exist`,
            'value_error.reference',
          ),
        );
      }
    }
    assertNoViolations(problems);
    const id = newId();
    const record: EvaluationRecord = {
      id,
      status: 'pending',
      progress: 0,
      creation_utc: now.toISOString(),
      invoices: [],
      payloads: input.payloads,
    };
    await this.streams.create(id, record);
    await this.scheduler.schedule({
      queue: QUEUE,
      jobId: `evaluation-${id}`,
      data: { evaluationId: id },
      attempts: 3,
      backoff: { type: 'exponential', delayMs: 500 },
    });
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

  /**
   * The job: the payloads not yet invoiced (a retried job resumes), judged by the matcher's coherence check in
   * calls of PROPOSALS_PER_CALL — each proposal against the existing guidelines (an update without the guideline
   * it replaces) and the payloads before it — with every call metered, and the invoices recorded per call.
   */
  private async run(evaluationId: string): Promise<void> {
    const record = await this.streams.get(evaluationId);
    if (!record || record.status === 'completed' || record.status === 'failed') return;
    if (record.payloads.length === 0) {
      await this.streams.update(evaluationId, () => ({ status: 'completed', progress: 100 }));
      return;
    }
    if (record.status === 'pending') await this.streams.update(evaluationId, () => ({ status: 'running' }));
    const existing: Guideline[] = (await this.guidelines.list()).map((g) => ({
      id: g.id,
      condition: g.condition,
      ...(g.action ? { action: g.action } : {}),
    }));
    const invoices = [...record.invoices];
    const asPayload = ({ guideline: { content } }: PayloadDto, i: number): Guideline => ({
      id: `payload:${i}`,
      condition: content.condition,
      ...(content.action ? { action: content.action } : {}),
    });
    while (invoices.length < record.payloads.length) {
      const start = invoices.length;
      const chunk = record.payloads.slice(start, start + PROPOSALS_PER_CALL);
      // A payload asking for no properties proposition (Parlant's flag) is not checked.
      const checked = chunk.map((p, k) => ({ p, index: start + k })).filter(({ p }) => p.guideline.properties_proposition !== false);
      const findings = new Map<number, Findings>();
      if (checked.length > 0) {
        const replaced = new Set(checked.map(({ p }) => p.guideline.updated_id).filter((id): id is string => id !== undefined));
        const request: CheckCoherenceRequestV1 = {
          evaluation_id: evaluationId,
          proposals: checked.map(({ p }) => ({
            condition: p.guideline.content.condition,
            ...(p.guideline.content.action ? { action: p.guideline.content.action } : {}),
          })),
          // Payloads of earlier calls count as existing guidelines (Parlant checks an evaluation's payloads together).
          existing: [...existing.filter((g) => !replaced.has(g.id)), ...record.payloads.slice(0, start).map(asPayload)],
        };
        const reply = await traced(
          'tenet.evaluation.check_coherence',
          { 'tenet.evaluation_id': evaluationId, 'tenet.proposals': checked.length },
          () =>
            this.bus.request<CheckCoherenceReplyV1, CheckCoherenceRequestV1>(MATCHER_CHECK_COHERENCE_SUBJECT, request, {
              timeoutMs: CALL_TIMEOUT_MS,
              headers: traceHeaders(),
            }),
        );
        for (const call of reply.calls) await this.usage.recordCall(EVALUATIONS_USAGE_ID, undefined, call);
        // The matcher names this call's proposals `proposal:<n>`; as invoices they are the evaluation's `payload:<i>`.
        const rename = (f: Findings['contradictions'][number]) => {
          const n = /^proposal:(\d+)$/.exec(f.guideline_id)?.[1];
          const proposal = n === undefined ? undefined : checked[Number(n)];
          return proposal ? { ...f, guideline_id: `payload:${proposal.index}` } : f;
        };
        checked.forEach(({ index }, k) => {
          const result = reply.results[k];
          if (result) findings.set(index, { contradictions: result.contradictions.map(rename), overlaps: result.overlaps.map(rename) });
        });
      }
      chunk.forEach((payload, k) => invoices.push(this.invoiceFor(payload, findings.get(start + k))));
      const done = invoices.length === record.payloads.length;
      await this.streams.update(evaluationId, () => ({
        invoices: [...invoices],
        progress: Math.round((100 * invoices.length) / record.payloads.length),
        status: done ? 'completed' : 'running',
      }));
    }
    this.logger.log(
      `evaluation ${evaluationId}: ${invoices.length} invoice(s), ${invoices.filter((inv) => !inv.approved).length} not approved`,
    );
  }

  private invoiceFor(payload: PayloadDto, findings: Findings | undefined): InvoiceView {
    const { content } = payload.guideline;
    return {
      payload,
      checksum: createHash('sha256').update(sortedJson(payload)).digest('hex'),
      approved: (findings?.contradictions.length ?? 0) === 0,
      data: {
        guideline: {
          ...(content.action !== undefined && payload.guideline.action_proposition !== false ? { action_proposition: content.action } : {}),
          properties_proposition: findings ? { contradictions: findings.contradictions, overlaps: findings.overlaps } : {},
        },
      },
    };
  }
}
