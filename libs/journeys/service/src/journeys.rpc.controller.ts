import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AdvanceJourneysRequestV1, JOURNEYS_ADVANCE_SUBJECT, rpcValidator, type AdvanceJourneysReplyV1 } from '@tenet/contracts';
import { TenetExceptionFilter } from '@tenet/messaging';
import { JourneyEngine } from './journey-engine.js';

/** Every replica of the engine, in whichever host process it runs, shares one queue group. */
export const JOURNEY_ENGINE_QUEUE_GROUP = 'journey-engine';

const validAdvanceRequest = rpcValidator(AdvanceJourneysRequestV1);

/** The engine's request/reply surface; a request that breaks its contract is refused with `CONTRACT.INVALID`. */
@Controller()
@UseFilters(TenetExceptionFilter)
export class JourneysRpcController {
  constructor(private readonly engine: JourneyEngine) {}

  @MessagePattern(JOURNEYS_ADVANCE_SUBJECT, { queueGroup: JOURNEY_ENGINE_QUEUE_GROUP })
  advance(@Payload() payload: unknown): AdvanceJourneysReplyV1 {
    return this.engine.advance(validAdvanceRequest(payload));
  }
}
