import { Inject, Injectable, Optional } from '@nestjs/common';
import { BudgetGate } from '@tenet/metering-gate';
import type { ExtractContextReplyV1, ExtractContextRequestV1 } from '@tenet/contracts';
import {
  EXTRACT_CONTEXT,
  extractContextRequest,
  generateWithRecovery,
  type ExtractContextInput,
  type ExtractContextOutput,
} from '@tenet/llm';
import { failedWithCalls, usageOf, usagesOf, type StepOptions } from './guideline-matcher.js';
import { ProviderRegistry } from './provider-registry.js';
import { hostname } from 'node:os';

const replica = `${hostname()}:${process.pid}`;

/**
 * Context extraction (docs/data-model.md#context-extraction): one LLM call per customer message for every variable with an extraction
 * prompt and the customer's facts, whatever their number. Values come back as the model wrote them (the
 * gateway types and validates them against each variable); a name the request did not ask for is dropped.
 */
@Injectable()
export class ContextExtractor {
  private readonly budgets: BudgetGate;

  constructor(
    private readonly providers: ProviderRegistry,
    @Optional() @Inject(BudgetGate) budgets?: BudgetGate,
  ) {
    // As for matching: without a gate, a request that carries a budget is refused, never run unchecked.
    this.budgets = budgets ?? new BudgetGate({ store: undefined, prices: {} });
  }

  async extract(request: ExtractContextRequestV1, options: StepOptions = {}): Promise<ExtractContextReplyV1> {
    if (request.variables.length === 0 && !request.facts) return { values: [], facts: [], served_by: replica };
    const input: ExtractContextInput = {
      message: request.message,
      history: request.history,
      variables: request.variables.map((v) => ({
        name: v.name,
        extraction_prompt: v.extraction_prompt,
        ...(v.description ? { description: v.description } : {}),
        ...(v.data_type ? { data_type: v.data_type } : {}),
        ...(v.allowed_values?.length ? { allowed_values: v.allowed_values } : {}),
      })),
      facts: request.facts,
    };
    const call = extractContextRequest(input, { purpose: EXTRACT_CONTEXT, sessionId: request.session_id, agentId: request.agent.id });
    const { response } = await generateWithRecovery<ExtractContextInput, ExtractContextOutput>(
      this.budgets.provider(this.providers.for(request.llm), request.budget?.scopes),
      { ...call, ...(options.signal ? { signal: options.signal } : {}) },
      0.3,
    ).catch((error: unknown) => {
      throw failedWithCalls(error, EXTRACT_CONTEXT, []);
    });
    const asked = new Set(request.variables.map((v) => v.name));
    const seen = new Set<string>();
    return {
      // One value per variable (the first the model gave), only for variables asked for.
      values: response.value.values.filter((v) => asked.has(v.name) && !seen.has(v.name) && seen.add(v.name)),
      facts: request.facts ? response.value.facts : [],
      usage: usageOf(EXTRACT_CONTEXT, response),
      ...(response.billedBefore?.length ? { calls: usagesOf(EXTRACT_CONTEXT, response) } : {}),
      served_by: replica,
    };
  }
}
