import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import type { CallUsageV1, ComposeReplyReplyV1, ComposeReplyRequestV1, MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import {
  composeReplyRequest,
  matchGuidelinesRequest,
  type ComposeReplyOutput,
  type LlmProvider,
  type LlmResponse,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from '@tenet/llm';
import { candidatesFor, selectMatches } from '@tenet/matching-domain';

export const MATCHER_LLM_PROVIDER = Symbol.for('tenet.matcher.llm-provider');

const replica = `${hostname()}:${process.pid}`;

const usageOf = (purpose: string, response: LlmResponse): CallUsageV1 => ({
  purpose,
  provider: response.provider,
  model: response.model,
  input_tokens: response.usage.inputTokens,
  output_tokens: response.usage.outputTokens,
  latency_ms: Math.round(response.latencyMs * 1000) / 1000,
});

/**
 * The matcher's use cases, stateless so any replica can serve any request: seed 000 §8 over the guidelines the
 * gateway sends (steps 1 and 3 in `candidatesFor`, step 4 by the provider, 5–7 and 9 in `selectMatches`), and
 * composing the reply from the matched actions. Each returns the token usage of its LLM call for metering.
 */
@Injectable()
export class GuidelineMatcher {
  constructor(@Inject(MATCHER_LLM_PROVIDER) private readonly provider: LlmProvider) {}

  async match(request: MatchGuidelinesRequestV1): Promise<MatchGuidelinesReplyV1> {
    const started = performance.now();
    const context = request.context ?? {};
    const candidates = candidatesFor(request.guidelines, context);
    let scored: LlmResponse<MatchGuidelinesOutput> | undefined;
    if (candidates.length > 0) {
      const input: MatchGuidelinesInput = {
        message: request.message,
        history: request.history,
        guidelines: candidates.map((g) => ({ id: g.id, condition: g.condition, ...(g.action ? { action: g.action } : {}) })),
      };
      scored = await this.provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(
        matchGuidelinesRequest(input, { purpose: 'match_guidelines', sessionId: request.session_id, agentId: request.agent.id }),
      );
    }
    const result = selectMatches(candidates, scored?.value.matches ?? [], context);
    return {
      result: { ...result, evaluation_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
      ...(scored ? { usage: usageOf('match_guidelines', scored) } : {}),
      served_by: replica,
    };
  }

  async compose(request: ComposeReplyRequestV1): Promise<ComposeReplyReplyV1> {
    const reply = await this.provider.generate<unknown, ComposeReplyOutput>(
      composeReplyRequest(
        { agentName: request.agent.name, message: request.message, matched: request.matched, history: request.history },
        { purpose: 'compose_reply', sessionId: request.session_id, agentId: request.agent.id },
        request.agent.description ? { agentDescription: request.agent.description } : {},
      ),
    );
    return { message: reply.value.message, cited_guideline_ids: reply.value.cited_guideline_ids, usage: usageOf('compose_reply', reply), served_by: replica };
  }
}
