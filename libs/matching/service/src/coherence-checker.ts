import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import type { CheckCoherenceReplyV1, CheckCoherenceRequestV1 } from '@tenet/contracts';
import {
  CHECK_COHERENCE,
  checkCoherenceRequest,
  generateWithRecovery,
  proposalId,
  registerOfflineTask,
  type CheckCoherenceInput,
  type CheckCoherenceOutput,
  type LlmResponse,
} from '@tenet/llm';
import { failedWithCalls, usagesOf } from './guideline-matcher.js';
import { checkCoherenceOffline } from './offline-coherence.js';
import { ProviderRegistry } from './provider-registry.js';

// Without a model, the coherence check is the matching domain's lexical judgement (every offline provider answers it).
registerOfflineTask(CHECK_COHERENCE, checkCoherenceOffline);

const replica = `${hostname()}:${process.pid}`;
const PURPOSE = 'check_coherence';

const round = (value: number): number => Math.round(value * 100) / 100;

/**
 * Evaluations' coherence check (Parlant's contradictions and overlaps): every proposal against the existing
 * guidelines and the proposals before it, in ONE structured call to the configured provider (repaired once when
 * out of schema). A finding must name a guideline the request listed — a proposal's own id, a later proposal or
 * an invented id is dropped (a model's slip must not reach the invoice). Each pair is reported once, a
 * contradiction winning over an overlap.
 */
@Injectable()
export class CoherenceChecker {
  constructor(@Inject(ProviderRegistry) private readonly providers: ProviderRegistry) {}

  async check(request: CheckCoherenceRequestV1, options: { signal?: AbortSignal } = {}): Promise<CheckCoherenceReplyV1> {
    const provider = this.providers.for(request.llm);
    const input: CheckCoherenceInput = {
      proposals: request.proposals.map((p, i) => ({
        id: proposalId(i),
        condition: p.condition,
        ...(p.action ? { action: p.action } : {}),
      })),
      existing: request.existing.map((g) => ({ id: g.id, condition: g.condition, ...(g.action ? { action: g.action } : {}) })),
    };
    const call = checkCoherenceRequest(input, { purpose: PURPOSE });
    let response: LlmResponse<CheckCoherenceOutput>;
    try {
      ({ response } = await generateWithRecovery<CheckCoherenceInput, CheckCoherenceOutput>(
        provider,
        { ...call, ...(options.signal ? { signal: options.signal } : {}) },
        0.3,
      ));
    } catch (error) {
      // Calls billed before the failure still go back to the gateway to be metered.
      throw failedWithCalls(error, PURPOSE, []);
    }
    const existingIds = new Set(request.existing.map((g) => g.id));
    const results: CheckCoherenceReplyV1['results'] = request.proposals.map(() => ({ contradictions: [], overlaps: [] }));
    const reported = new Map<string, 'contradiction' | 'overlap'>();
    // Contradictions first, so a pair reported as both keeps the contradiction.
    const findings = [...response.value.findings].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'contradiction' ? -1 : 1));
    for (const finding of findings) {
      const index = /^proposal:(\d+)$/.exec(finding.proposal_id)?.[1];
      const at = index === undefined ? -1 : Number(index);
      if (at < 0 || at >= request.proposals.length) continue;
      const earlier = /^proposal:(\d+)$/.exec(finding.guideline_id)?.[1];
      const known = existingIds.has(finding.guideline_id) || (earlier !== undefined && Number(earlier) < at);
      const pair = `${at}\u0000${finding.guideline_id}`;
      const result = results[at];
      if (!result || !known || reported.has(pair)) continue;
      reported.set(pair, finding.kind);
      const entry = {
        guideline_id: finding.guideline_id,
        condition_similarity: round(finding.condition_similarity),
        reason: finding.reason,
      };
      (finding.kind === 'contradiction' ? result.contradictions : result.overlaps).push(entry);
    }
    const calls = usagesOf(PURPOSE, response);
    return { results, calls, served_by: replica };
  }
}
