import { Inject, Injectable } from '@nestjs/common';
import type { LlmUsageRecordedV1 } from '@tenet/contracts';
import { InvalidEventError, type EventStore } from '@tenet/event-store';
import { summarizeUsage, type UsageRecord, type UsageSummary } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';

/** A token record (docs/data-model.md#budgets), as the metering service stores it: one per LLM call, on the agent's `tokens-<id>` stream. */
export interface TokenRecord extends UsageRecord {
  usage_event_id: string;
  agent_id: string;
  session_id?: string;
  purpose: string;
  latency_ms: number;
  /** The primary that failed when a fallback provider answered (docs/data-model.md#fallback). */
  fallback_from?: string;
}

export const TOKEN_RECORDED = 'TokenRecorded';
export const tokenStreamId = (agentId: string): string => `tokens-${agentId}`;

/**
 * The metering service's own records. Recording is idempotent: the record's event id is derived from the usage
 * event's id, so a redelivered usage event (at-least-once delivery) is refused by the log's unique id and
 * counted once.
 */
@Injectable()
export class TokenRecords {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** Returns false when the usage event was already recorded. */
  async record(event: LlmUsageRecordedV1): Promise<boolean> {
    const { data } = event;
    const record: TokenRecord = {
      usage_event_id: event.id,
      agent_id: data.agent_id,
      ...(data.session_id !== undefined ? { session_id: data.session_id } : {}),
      purpose: data.purpose,
      provider: data.provider,
      model: data.model,
      input_tokens: data.input_tokens,
      output_tokens: data.output_tokens,
      cost_estimate_usd: data.cost_estimate_usd,
      latency_ms: data.latency_ms,
      ...(data.fallback_from !== undefined ? { fallback_from: data.fallback_from } : {}),
      at: event.occurred_at,
    };
    try {
      await this.store.append(tokenStreamId(data.agent_id), [{ id: `token-${event.id}`, type: TOKEN_RECORDED, data: record }]);
      return true;
    } catch (error) {
      if (error instanceof InvalidEventError && error.field === 'events[0].id') return false;
      throw error;
    }
  }

  /** Tokens and estimated cost of the agent's calls whose time lies in [from, to). */
  async summary(agentId: string, from?: string, to?: string): Promise<UsageSummary> {
    const records = (await this.store.readStream(tokenStreamId(agentId))).map((event) => event.data as TokenRecord);
    return summarizeUsage(records, from, to);
  }
}
