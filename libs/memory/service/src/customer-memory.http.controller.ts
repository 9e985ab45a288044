import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import type { Fact } from '@tenet/memory-domain';
import { isISO8601 } from '@tenet/platform-runtime/validation';
import { CustomerMemoryStore } from './customer-memory.store.js';
import { invalid, memoryCall } from './http-errors.js';
import { FactCreationDto } from './memory.dto.js';

export interface FactView {
  id: string;
  customer_id: string;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  source: { kind: string; session_id?: string; message_id?: string };
  recorded_at: string;
  superseded_at: string | null;
  superseded_by: string | null;
}

export const factView = (f: Fact): FactView => ({
  id: f.factId,
  customer_id: f.customerId,
  subject: f.subject,
  predicate: f.predicate,
  object: f.object,
  confidence: f.confidence,
  source: {
    kind: f.source.kind,
    ...(f.source.sessionId ? { session_id: f.source.sessionId } : {}),
    ...(f.source.messageId ? { message_id: f.source.messageId } : {}),
  },
  recorded_at: new Date(f.recordedAt).toISOString(),
  superseded_at: f.supersededAt === undefined ? null : new Date(f.supersededAt).toISOString(),
  superseded_by: f.supersededBy ?? null,
});

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A customer's semantic memory (docs/data-model.md#semantic-memory). `DELETE` forgets: a `FactForgotten` tombstone removes the fact from
 * every answer, now and for past `at` (ADR 0016 — the original event stays in the log until crypto-shredding).
 */
@Controller('customers/:customerId/memory')
export class CustomerMemoryHttpController {
  constructor(private readonly memory: CustomerMemoryStore) {}

  /** Facts true now, or at `?at=<ISO-8601>`. */
  @Get()
  async facts(@Param('customerId') customerId: string, @Query('at') at?: string): Promise<FactView[]> {
    assertCustomerId(customerId);
    let when: Date | undefined;
    if (at !== undefined) {
      // Strict: a date that does not exist (2024-02-30) is refused, not rolled over into the next month.
      when =
        typeof at === 'string' && /^\d{4}-\d{2}-\d{2}/.test(at) && isISO8601(at, { strict: true }) ? new Date(at) : new Date(Number.NaN);
      if (Number.isNaN(when.getTime())) throw invalid(['query', 'at'], 'at must be an ISO-8601 date-time');
    }
    return (await this.memory.facts(customerId, when)).map(factView);
  }

  /** Records a fact (until extraction does it from conversations); a fact already believed is not duplicated (200 with none). */
  @Post()
  @HttpCode(HttpStatus.CREATED)
  async record(
    @Param('customerId') customerId: string,
    @Body() body: FactCreationDto,
  ): Promise<{ fact: FactView | null; superseded: string[] }> {
    assertCustomerId(customerId);
    const { fact, events } = await memoryCall(() =>
      this.memory.record(customerId, {
        ...(body.id !== undefined ? { factId: body.id } : {}),
        subject: body.subject,
        predicate: body.predicate,
        object: body.object,
        confidence: body.confidence ?? 1,
        source: {
          kind: body.source?.kind ?? 'operator',
          ...(body.source?.session_id ? { sessionId: body.source.session_id } : {}),
          ...(body.source?.message_id ? { messageId: body.source.message_id } : {}),
        },
        ...(body.cardinality ? { cardinality: body.cardinality } : {}),
      }),
    );
    return { fact: fact ? factView(fact) : null, superseded: events.flatMap((e) => (e.type === 'FactSuperseded' ? [e.data.factId] : [])) };
  }

  @Delete(':factId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async forget(@Param('customerId') customerId: string, @Param('factId') factId: string): Promise<void> {
    assertCustomerId(customerId);
    await memoryCall(() => this.memory.forget(customerId, factId, 'deleted through the API'));
  }
}

function assertCustomerId(customerId: string): void {
  if (!ID.test(customerId)) throw invalid(['path', 'customer_id'], 'customer_id must be 1-64 characters of [A-Za-z0-9_-]');
}
