import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MEMORY_RECALL_QUEUE_GROUP, MEMORY_RECALL_SUBJECT, RecallRequestV1, rpcValidator, type RecallResponseV1 } from '@tenet/contracts';
import { TenetExceptionFilter } from '@tenet/messaging';
import { CustomerMemoryStore } from './customer-memory.store.js';
import { KnowledgeService } from './knowledge.service.js';
import { recall } from './memory-recall.js';

const validRecallRequest = rpcValidator(RecallRequestV1);

/** Per-turn recall over the bus; every memory-store replica (or the all-in-one process) shares one queue group. */
@Controller()
@UseFilters(TenetExceptionFilter)
export class MemoryRecallRpcController {
  constructor(
    private readonly memory: CustomerMemoryStore,
    private readonly knowledge: KnowledgeService,
  ) {}

  @MessagePattern(MEMORY_RECALL_SUBJECT, { queueGroup: MEMORY_RECALL_QUEUE_GROUP })
  recall(@Payload() payload: unknown): Promise<RecallResponseV1> {
    return recall(validRecallRequest(payload), this.memory, this.knowledge);
  }
}
