import { Controller, Logger, Optional, UseFilters } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { LlmUsageRecordedV1, METERING_USAGE_SUBJECT, rpcValidator, RpcValidationError, UsageSummaryRequestV1 } from '@tenet/contracts';
import type { UsageSummary } from '@tenet/metering-domain';
import { NonRetryableMessageError, TenetContext, TenetExceptionFilter } from '@tenet/messaging';
import { TenetMetrics, traced, withRemoteParent } from '@tenet/observability';
import { TokenRecords } from './token-records.js';

const validUsageEvent = rpcValidator(LlmUsageRecordedV1);
const validSummaryRequest = rpcValidator(UsageSummaryRequestV1);

/** Every published usage event, whichever process made the call (durable: a restarted metering catches up). */
export const USAGE_EVENTS = 'tenet.v1.metering.*.llm_usage_recorded';

@Controller()
@UseFilters(TenetExceptionFilter)
export class MeteringController {
  private readonly logger = new Logger(MeteringController.name);

  constructor(
    private readonly records: TokenRecords,
    @Optional() private readonly metrics?: TenetMetrics,
  ) {}

  /** Stores one token record per usage event. A payload that breaks the contract can never succeed: terminated, not retried. */
  @EventPattern<string>(USAGE_EVENTS, { durable: 'metering_llm_usage', maxDeliver: 10, concurrency: 8 })
  async onUsage(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<void> {
    let event: LlmUsageRecordedV1;
    try {
      event = validUsageEvent(payload);
    } catch (error) {
      if (error instanceof RpcValidationError) throw new NonRetryableMessageError(error.message, { cause: error });
      throw error;
    }
    // A span of the turn that made the call (its context is in the message headers, from the usage event's metadata).
    const attributes = {
      'tenet.agent_id': event.data.agent_id,
      'tenet.purpose': event.data.purpose,
      'tenet.event_id': event.id,
      ...(event.data.session_id ? { 'tenet.session_id': event.data.session_id } : {}),
    };
    await withRemoteParent(context.getHeaders(), () =>
      traced('tenet.metering.record', attributes, async () => {
        // Counted once per stored record (a redelivery is not), so the counters add up to GET /agents/{id}/usage.
        if (await this.records.record(event)) this.metrics?.recordLlmUsage(event.data);
        else this.logger.debug(`usage event ${event.id} was already recorded`);
      }),
    );
  }

  @MessagePattern(METERING_USAGE_SUBJECT, { queueGroup: 'metering' })
  summary(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<UsageSummary> {
    const request = validSummaryRequest(payload);
    return withRemoteParent(context.getHeaders(), () =>
      traced('tenet.metering.summary', { 'tenet.agent_id': request.agent_id }, () =>
        this.records.summary(request.agent_id, request.from, request.to),
      ),
    );
  }
}
