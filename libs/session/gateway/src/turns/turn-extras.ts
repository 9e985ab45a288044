import { Injectable } from '@nestjs/common';
import type { TurnExtras, TurnExtrasSource } from './turn.service.js';

/**
 * The agent's relationships, tools, matching settings, provider choice and canned responses for a turn.
 * Until those resources exist in the gateway, a turn runs with none of them (matcher defaults apply).
 */
@Injectable()
export class NoTurnExtras implements TurnExtrasSource {
  async forTurn(): Promise<TurnExtras> {
    return { relationships: [], tools: [], cannedResponses: [] };
  }
}
