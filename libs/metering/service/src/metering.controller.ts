import { Controller, UseFilters, Logger } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { LlmUsageRecordedV1, METERING_USAGE_SUBJECT, rpcValidator, RpcValidationError, UsageSummaryRequestV1 } from '@tenet/contracts';
import type { UsageSummary } from '@tenet/metering-domain';
import { NonRetryableMessageError, TenetExceptionFilter } from '@tenet/messaging';
import { TokenRecords } from './token-records.js';

const validUsageEvent = rpcValidator(LlmUsageRecordedV1);
const validSummaryRequest = rpcValidator(UsageSummaryRequestV1);

/** Every published usage event, whichever process made the call (durable: a restarted metering catches up). */
export const USAGE_EVENTS = 'tenet.v1.metering.*.llm_usage_recorded';

@Controller()
@UseFilters(TenetExceptionFilter)
export class MeteringController {
  private readonly logger = new Logger(MeteringController.name);

  constructor(private readonly records: TokenRecords) {}

  /** Stores one token record per usage event. A payload that breaks the contract can never succeed: terminated, not retried. */
  @EventPattern(USAGE_EVENTS, { durable: 'metering_llm_usage', maxDeliver: 10, concurrency: 8 })
  async onUsage(@Payload() payload: unknown): Promise<void> {
    let event: LlmUsageRecordedV1;
    try {
      event = validUsageEvent(payload);
    } catch (error) {
      if (error instanceof RpcValidationError) throw new NonRetryableMessageError(error.message, { cause: error });
      throw error;
    }
    if (!(await this.records.record(event))) this.logger.debug(`usage event ${event.id} was already recorded`);
  }

  @MessagePattern(METERING_USAGE_SUBJECT, { queueGroup: 'metering' })
  summary(@Payload() payload: unknown): Promise<UsageSummary> {
    const request = validSummaryRequest(payload);
    return this.records.summary(request.agent_id, request.from, request.to);
  }
}
