/**
 * Evaluations judged by a model (ADR 0021): the coherence of proposed guidelines is asked of the LLM through the
 * matcher (`tenet.rpc.v1.matcher.check_coherence`) in ONE structured call for up to PROPOSALS_PER_CALL payloads,
 * in a background job, metered under `_evaluations`. A scripted provider plays the model, so the findings here are
 * ones the lexical check cannot see (no shared words) — they can only come from the model's answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { CHECK_COHERENCE, type CheckCoherenceInput } from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

interface Finding {
  guideline_id: string;
  condition_similarity: number;
  reason: string;
}
interface Evaluation {
  id: string;
  status: string;
  progress: number;
  error?: string;
  invoices: { approved: boolean; data?: { guideline: { properties_proposition: { contradictions?: Finding[]; overlaps?: Finding[] } } } }[];
}

const guideline = (condition: string, action?: string, extra: Record<string, unknown> = {}) => ({
  kind: 'guideline',
  guideline: { content: { condition, ...(action ? { action } : {}) }, tool_ids: [], operation: 'add', ...extra },
});

describe('evaluations with a model: one batched, metered coherence call in a background job', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const provider = new ScriptedProvider({ usage: { inputTokens: 300, outputTokens: 40 } });
  const { call, created } = gatewayHttp(() => url);

  const finished = (id: string): Promise<Evaluation> =>
    eventually(
      async () => {
        const reply = await call(`/evaluations/${id}?wait_for_completion=10`);
        expect((reply.body as Evaluation).status).toMatch(/^(completed|failed)$/);
        return reply.body as Evaluation;
      },
      { timeoutMs: 60_000 },
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-evaluations-llm-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' }, { provider }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the model once for all payloads and turns its findings into invoices; ids it invents are dropped', async () => {
    const angry = await created('/guidelines', { condition: 'The customer is furious', action: 'Stay calm and apologise sincerely' });
    const hours = await created('/guidelines', {
      condition: 'Someone wants to know when the shop opens',
      action: 'Give the opening hours',
    });
    provider.answerWith<CheckCoherenceInput>(CHECK_COHERENCE, (request) => {
      const { proposals, existing } = request.task.input;
      expect(proposals.map((p) => p.id)).toEqual(['proposal:0', 'proposal:1', 'proposal:2']);
      expect(existing.map((g) => g.id).sort()).toEqual([angry.id, hours.id].sort());
      return {
        findings: [
          {
            proposal_id: 'proposal:0',
            guideline_id: angry.id,
            kind: 'contradiction',
            condition_similarity: 0.8,
            reason: 'mocking an upset customer breaks "stay calm and apologise"',
          },
          {
            proposal_id: 'proposal:1',
            guideline_id: hours.id,
            kind: 'overlap',
            condition_similarity: 0.9,
            reason: 'both are about when the store is open',
          },
          {
            proposal_id: 'proposal:2',
            guideline_id: 'proposal:1',
            kind: 'contradiction',
            condition_similarity: 0.7,
            reason: 'one promises weekend hours, the other says closed',
          },
          // A model's slips: an id nobody listed, a proposal against itself, a proposal against a later one.
          { proposal_id: 'proposal:1', guideline_id: 'g-invented', kind: 'overlap', condition_similarity: 0.5, reason: 'x' },
          { proposal_id: 'proposal:2', guideline_id: 'proposal:2', kind: 'overlap', condition_similarity: 1, reason: 'x' },
          { proposal_id: 'proposal:0', guideline_id: 'proposal:1', kind: 'overlap', condition_similarity: 0.2, reason: 'x' },
        ],
      };
    });
    const before = provider.requestsFor(CHECK_COHERENCE).length;
    const evaluation = await created<Evaluation>('/evaluations', {
      payloads: [
        guideline('A customer is upset', 'Respond with sarcasm'),
        guideline('A visitor asks about store hours', 'Say we open at nine'),
        guideline('A visitor asks whether we trade on Sunday', 'Say we are closed all weekend'),
      ],
    });
    expect(['pending', 'running']).toContain(evaluation.status);
    const done = await finished(evaluation.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    expect(provider.requestsFor(CHECK_COHERENCE).length - before).toBe(1);
    const [upset, storeHours, sunday] = done.invoices.map((i) => ({ approved: i.approved, ...i.data!.guideline.properties_proposition }));
    expect(upset).toEqual({
      approved: false,
      contradictions: [{ guideline_id: angry.id, condition_similarity: 0.8, reason: expect.stringContaining('mocking') }],
      overlaps: [],
    });
    expect(storeHours).toEqual({
      approved: true,
      contradictions: [],
      overlaps: [{ guideline_id: hours.id, condition_similarity: 0.9, reason: expect.any(String) }],
    });
    // Earlier payloads of the evaluation are named payload:<index>, as the lexical check names them.
    expect(sunday).toEqual({
      approved: false,
      contradictions: [{ guideline_id: 'payload:1', condition_similarity: 0.7, reason: expect.any(String) }],
      overlaps: [],
    });

    // The call is metered (tokens as the provider reported them) under the reserved `_evaluations` id.
    await eventually(
      async () => expect((await call('/agents/_evaluations/usage')).body).toMatchObject({ calls: 1, input_tokens: 300, output_tokens: 40 }),
      { timeoutMs: 30_000 },
    );
    // …which no agent can take.
    expect((await call('/agents', 'POST', { id: '_evaluations', name: 'Sneaky' })).status).toBe(422);
  });

  it('splits a large evaluation into calls, records progress after each, and a failed call is retried without redoing the ones before', async () => {
    const base = provider.requestsFor(CHECK_COHERENCE).length;
    provider.answerWith<CheckCoherenceInput>(CHECK_COHERENCE, () => ({ findings: [] }));
    provider.fail(CHECK_COHERENCE, new Error('the model is down'));
    provider.answerWith<CheckCoherenceInput>(CHECK_COHERENCE, (request) => {
      // The second call sees the first ten payloads as guidelines that will exist.
      expect(request.task.input.existing.filter((g) => g.id.startsWith('payload:')).map((g) => g.id)).toEqual(
        Array.from({ length: 10 }, (_, i) => `payload:${i}`),
      );
      return {
        findings: [
          { proposal_id: 'proposal:1', guideline_id: 'payload:3', kind: 'overlap', condition_similarity: 0.6, reason: 'same situation' },
        ],
      };
    });
    const payloads = Array.from({ length: 12 }, (_, i) => guideline(`Situation number ${i} arises`, `Do thing ${i}`));
    const evaluation = await created<Evaluation>('/evaluations', { payloads });
    const done = await finished(evaluation.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    const requests = provider.requestsFor<CheckCoherenceInput>(CHECK_COHERENCE).slice(base);
    expect(requests.map((r) => r.task.input.proposals.length)).toEqual([10, 2, 2]); // the failed call, then its retry
    expect(done.invoices[11]!.data!.guideline.properties_proposition.overlaps).toEqual([
      { guideline_id: 'payload:3', condition_similarity: 0.6, reason: 'same situation' },
    ]);
    // The log shows the progress the job recorded: running after the first call (10 of 12), then done.
    const store = app.get<EventStore>(EVENT_STORE);
    const progress = (await store.readStream(`evaluation-${evaluation.id}`))
      .map((e) => (e.data as { progress?: number }).progress)
      .filter((p) => p !== undefined);
    expect(progress).toEqual([0, 83, 100]);
    expect(provider.remaining()).toEqual({});
  });

  it('marks the evaluation failed, naming the error, when the model keeps failing', async () => {
    for (let i = 0; i < 3; i++) provider.fail(CHECK_COHERENCE, new Error('the model is down'));
    const evaluation = await created<Evaluation>('/evaluations', { payloads: [guideline('The customer says hi', 'Greet them')] });
    const done = await finished(evaluation.id);
    expect(done.status).toBe('failed');
    expect(done.error).toContain('the model is down');
    expect(provider.remaining()).toEqual({});
  });
});
