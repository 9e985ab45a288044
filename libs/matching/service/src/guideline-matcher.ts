import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import type { CallUsageV1, ComposeReplyReplyV1, ComposeReplyRequestV1, MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import {
  composeReplyRequest,
  generateWithSchedule,
  matchGuidelinesRequest,
  type ComposeReplyInput,
  type ComposeReplyOutput,
  type GlossaryTerm,
  type LlmResponse,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from '@tenet/llm';
import {
  candidatesFor,
  planBatches,
  prefilterCandidates,
  rankMatches,
  renderTemplate,
  resolveRelationships,
  scopeToJourneys,
  scoredMatches,
  type MatchableGuideline,
  type RelevanceScore,
} from '@tenet/matching-domain';
import { EmbeddingCache } from './embedding-cache.js';
import { ProviderRegistry } from './provider-registry.js';
import { ToolParameterValidator, type ToolParameterIssue } from './tool-parameters.js';

const replica = `${hostname()}:${process.pid}`;

/** The agent's matching settings when it sets none (seed 000 §8 defaults, and Tenet's cost controls). */
export const DEFAULT_MATCHING_SETTINGS = { threshold: 0.3, top_n: 3, prefilter_k: 40, max_batch_tokens: 12_000, max_batches: 3, temperatures: [0, 0.3, 0.7] };

/** strict_canned's reply when no template fits and the agent configured none (Parlant has a similar default). */
export const DEFAULT_NO_MATCH_MESSAGE = "Sorry, I'm not able to help with that right now.";

/** Templates offered to one composition call; more are ranked by overlap with the matched actions first. */
const MAX_TEMPLATES = 25;

export const usageOf = (purpose: string, response: LlmResponse): CallUsageV1 => ({
  purpose,
  provider: response.provider,
  model: response.model,
  input_tokens: response.usage.inputTokens,
  output_tokens: response.usage.outputTokens,
  latency_ms: Math.round(response.latencyMs * 1000) / 1000,
  ...(response.fallbackFrom !== undefined ? { fallback_from: response.fallbackFrom } : {}),
});

/** Rough prompt size of one guideline in a matching call: ~4 characters per token, plus its framing. */
const tokensOf = (g: MatchableGuideline, toolText: number): number => Math.ceil((g.condition.length + (g.action?.length ?? 0) + toolText) / 4) + 24;

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** Glossary terms the conversation or the evaluated guidelines mention (by name or synonym). */
function relevantTerms(terms: readonly GlossaryTerm[], texts: readonly string[]): GlossaryTerm[] {
  const haystack = ` ${texts.join(' ').toLowerCase()} `;
  return terms.filter((t) => [t.name, ...t.synonyms].some((phrase) => phrase.trim() !== '' && new RegExp(`(^|[^a-z0-9])${phrase.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^a-z0-9]|$)`).test(haystack)));
}

/**
 * The guideline matcher's engine, stateless per request so any replica serves any turn (seed 000 §8):
 *   1–3  enabled, journey scope, required context                 (domain: candidatesFor, scopeToJourneys)
 *        embedding prefilter when there are more than prefilter_k (domain: prefilterCandidates; vectors cached)
 *   4    relevance, reasoning, confidence and tool arguments from the LLM, in as few structured-output calls as
 *        the token budget allows (domain: planBatches), in parallel, each with the temperature schedule
 *   5    threshold; relationships resolved to a fixed point        (domain: scoredMatches, resolveRelationships)
 *   6–9  priority/criticality order, top N, tool parameters checked against each tool's JSON Schema, combined
 *        action, deduplicated tools                               (domain: rankMatches; ToolParameterValidator)
 * and composes the reply in the agent's composition mode, enforcing strict_canned's "only templates".
 */
@Injectable()
export class GuidelineMatcher {
  private readonly validator = new ToolParameterValidator();

  constructor(
    @Inject(ProviderRegistry) private readonly providers: ProviderRegistry,
    @Inject(EmbeddingCache) private readonly embeddings: EmbeddingCache,
  ) {}

  async match(request: MatchGuidelinesRequestV1): Promise<MatchGuidelinesReplyV1> {
    const started = performance.now();
    const settings = { ...DEFAULT_MATCHING_SETTINGS, ...request.settings };
    const provider = this.providers.for(request.llm);
    const callContext = { purpose: 'match_guidelines', sessionId: request.session_id, agentId: request.agent.id };
    const context = request.context ?? {};
    const applied = new Set(request.previously_applied ?? []);
    const relationships = request.relationships ?? [];
    const calls: CallUsageV1[] = [];

    const candidates = candidatesFor(scopeToJourneys(request.guidelines, request.active_journey), context);
    let kept: MatchableGuideline[] = candidates;
    const prefilter: Record<string, unknown> = { guidelines: request.guidelines.length, candidates: candidates.length, kept: candidates.length, used: false };
    if (candidates.length > settings.prefilter_k) {
      const query = [...request.history.slice(-2).map((t) => t.content), request.message].join('\n');
      const texts = [query, ...candidates.map((g) => `${g.condition}\n${g.action ?? ''}`)];
      const embedded = await this.embeddings.embed(texts, { ...callContext, purpose: 'embed' });
      if (embedded.usage) calls.push(embedded.usage);
      const vectors = new Map(candidates.map((g, i) => [g.id, embedded.vectors[i + 1] ?? []]));
      const filtered = prefilterCandidates({
        candidates,
        vectors,
        query: embedded.vectors[0] ?? [],
        k: settings.prefilter_k,
        previouslyApplied: applied,
        relationships,
        ...(request.active_journey ? { activeJourneyId: request.active_journey.journey_id } : {}),
      });
      kept = filtered.kept;
      const reasons: Record<string, number> = {};
      for (const reason of filtered.reasons.values()) reasons[reason] = (reasons[reason] ?? 0) + 1;
      Object.assign(prefilter, { kept: kept.length, used: true, reasons, embedded_now: embedded.computed, embedding_model: this.embeddings.model });
    }

    const tools = request.tools ?? [];
    const toolsByName = new Map(tools.map((t) => [t.name, t]));
    const terms = relevantTerms(request.terms ?? [], [request.message, ...request.history.map((t) => t.content), ...kept.map((g) => g.condition)]);
    const toolText = (g: MatchableGuideline): number => g.tools.reduce((sum, name) => sum + JSON.stringify(toolsByName.get(name) ?? '').length, 0);
    const batches = planBatches(kept, { maxBatchTokens: settings.max_batch_tokens, maxBatches: settings.max_batches, estimateTokens: (g) => tokensOf(g, toolText(g)) });
    const outcomes = await Promise.all(
      batches.map((batch) => {
        const input: MatchGuidelinesInput = {
          message: request.message,
          history: request.history,
          guidelines: batch.map((g) => ({
            id: g.id,
            condition: g.condition,
            ...(g.action ? { action: g.action } : {}),
            ...(applied.has(g.id) && !g.continuous ? { previously_applied: true } : {}),
            ...(g.tools.length > 0 ? { tools: g.tools.flatMap((name) => toolsByName.get(name) ?? []) } : {}),
          })),
          ...(terms.length > 0 ? { terms } : {}),
        };
        return generateWithSchedule<MatchGuidelinesInput, MatchGuidelinesOutput>(provider, matchGuidelinesRequest(input, callContext), settings.temperatures);
      }),
    );
    for (const outcome of outcomes) calls.push(usageOf('match_guidelines', outcome.response));

    const byId = new Map(kept.map((g) => [g.id, g]));
    const toolIssues: ToolParameterIssue[] = [];
    const scores: RelevanceScore[] = outcomes.flatMap((o) =>
      o.response.value.matches.flatMap((m) => {
        const guideline = byId.get(m.guideline_id);
        if (!guideline) return [];
        const checked = this.validator.validate(guideline.id, tools, m.tool_arguments, guideline.tools);
        toolIssues.push(...checked.issues);
        return [{ guideline_id: m.guideline_id, relevance: m.relevance, confidence: m.confidence, reasoning: m.reasoning, tool_parameters: checked.parameters }];
      }),
    );
    const aboveThreshold = scoredMatches(kept, scores, context, settings.threshold);
    const resolution = resolveRelationships(aboveThreshold, candidates, relationships, context);
    const ranked = rankMatches(resolution.active, settings.top_n);
    // Tools with arguments that failed their schema are not executed with them.
    const result = { ...ranked, tools_to_execute: ranked.tools_to_execute.filter((t) => !toolIssues.some((i) => i.guideline_id === t.guideline_id && i.tool_name === t.tool_name)) };

    const llmCall = calls.find((c) => c.purpose === 'match_guidelines');
    return {
      result: {
        ...result,
        evaluation_time_ms: Math.max(1, Math.round(performance.now() - started)),
        ...(resolution.disambiguation ? { disambiguation: resolution.disambiguation } : {}),
      },
      ...(llmCall ? { usage: llmCall } : {}),
      calls,
      provenance: {
        prefilter,
        batches: batches.map((b) => ({ guidelines: b.length, estimated_tokens: b.reduce((sum, g) => sum + tokensOf(g, toolText(g)), 0) })),
        attempts: outcomes.map((o) => o.attempts.map((a) => ({ temperature: a.temperature, ...(a.error ? { error: a.error.code } : {}) }))),
        relationships: { iterations: resolution.iterations, capped: resolution.capped, steps: resolution.steps },
        glossary: terms.map((t) => t.name),
        ...(toolIssues.length > 0 ? { tool_parameter_issues: toolIssues } : {}),
        settings,
      },
      served_by: replica,
    };
  }

  async compose(request: ComposeReplyRequestV1): Promise<ComposeReplyReplyV1> {
    const provider = this.providers.for(request.llm);
    const mode = request.composition_mode ?? 'fluid';
    const fields = request.field_values ?? {};
    const actionWords = words([request.message, ...request.matched.map((m) => m.action)].join(' '));
    const overlap = (text: string): number => [...words(text)].filter((w) => actionWords.has(w)).length;
    // Only templates whose fields all have values can be said; the most relevant ones are offered.
    const usable = (request.canned_responses ?? [])
      .filter((c) => renderTemplate(c.value, fields) !== undefined)
      .sort((a, b) => overlap(b.value) - overlap(a.value) || a.id.localeCompare(b.id))
      .slice(0, MAX_TEMPLATES);
    const input: ComposeReplyInput = {
      agentName: request.agent.name,
      message: request.message,
      matched: request.matched,
      history: request.history,
      composition_mode: mode,
      ...(mode !== 'fluid' ? { canned_responses: usable, field_values: fields } : {}),
      ...(request.terms?.length ? { terms: request.terms } : {}),
      ...(request.disambiguation ? { disambiguation: request.disambiguation } : {}),
    };
    const { response } = await generateWithSchedule<ComposeReplyInput, ComposeReplyOutput>(
      provider,
      composeReplyRequest(input, { purpose: 'compose_reply', sessionId: request.session_id, agentId: request.agent.id }, request.agent.description ? { agentDescription: request.agent.description } : {}),
      [0.3, 0.7],
    );
    const chosen = usable.find((c) => c.id === response.value.canned_response_id);
    let message = response.value.message;
    if (mode === 'strict_canned') {
      // Strict: the customer hears a template (fields filled in) or the no-match message — never free text.
      message = chosen ? (renderTemplate(chosen.value, fields) ?? '') : (request.no_match_message ?? DEFAULT_NO_MATCH_MESSAGE);
    } else if (chosen && mode === 'canned_fluid') {
      message = renderTemplate(chosen.value, fields) ?? message;
    }
    const matchedIds = new Set(request.matched.map((m) => m.guideline_id));
    return {
      message,
      cited_guideline_ids: mode === 'strict_canned' && !chosen ? [] : response.value.cited_guideline_ids.filter((id) => matchedIds.has(id)),
      ...(chosen ? { canned_response_id: chosen.id } : {}),
      usage: usageOf('compose_reply', response),
      served_by: replica,
    };
  }
}
