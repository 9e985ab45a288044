import { Controller, Logger, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { FactsExtractedV1, rpcValidator, RpcValidationError } from '@tenet/contracts';
import { MemoryDomainError } from '@tenet/memory-domain';
import { NonRetryableMessageError, TenetExceptionFilter } from '@tenet/messaging';
import { CustomerMemoryStore } from './customer-memory.store.js';

const validFactsExtracted = rpcValidator(FactsExtractedV1);

/** Every customer's extracted facts (durable: a memory store that was down records them when it is back). */
export const FACTS_EXTRACTED_EVENTS = 'tenet.v1.memory.*.facts_extracted';

/**
 * Records the facts a turn extracted (published by the session gateway). Each fact has an id derived from the
 * message it came from, so a redelivered event records nothing twice; a contradicting fact supersedes the
 * current one (single-valued predicates, ADR 0016/0017).
 */
@Controller()
@UseFilters(TenetExceptionFilter)
export class FactsExtractedConsumer {
  private readonly logger = new Logger(FactsExtractedConsumer.name);

  constructor(private readonly memory: CustomerMemoryStore) {}

  @EventPattern(FACTS_EXTRACTED_EVENTS, { durable: 'memory_facts_extracted', maxDeliver: 10, concurrency: 4 })
  async onFactsExtracted(@Payload() payload: unknown): Promise<void> {
    let event: FactsExtractedV1;
    try {
      event = validFactsExtracted(payload);
    } catch (error) {
      if (error instanceof RpcValidationError) throw new NonRetryableMessageError(error.message, { cause: error });
      throw error;
    }
    const { customerId, sessionId, workspaceId, sourceMessageId, facts } = event.data;
    for (const fact of facts) {
      try {
        await this.memory.record(
          customerId,
          {
            factId: fact.factId,
            subject: fact.subject,
            predicate: fact.predicate,
            object: fact.object,
            confidence: fact.confidence,
            source: { kind: 'conversation', sessionId, messageId: sourceMessageId },
          },
          workspaceId !== undefined ? { workspaceId } : {},
        );
      } catch (error) {
        // Already recorded (a redelivery) or refused by the decider: retrying cannot change that.
        if (error instanceof MemoryDomainError)
          this.logger.debug(`fact ${fact.factId} of customer ${customerId} not recorded: ${error.message}`);
        else throw error;
      }
    }
  }
}
