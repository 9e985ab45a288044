import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
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
  creation_utc: string;
  invoices: {
    checksum: string;
    approved: boolean;
    payload: unknown;
    data?: { guideline: { action_proposition?: string; properties_proposition: { contradictions: Finding[]; overlaps: Finding[] } } };
  }[];
}

const guideline = (condition: string, action?: string, extra: Record<string, unknown> = {}) => ({
  kind: 'guideline',
  guideline: { content: { condition, ...(action ? { action } : {}) }, tool_ids: [], operation: 'add', ...extra },
});

describe('evaluations: background coherence checks of proposed guidelines (all-in-one, in-process scheduler)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created, details } = gatewayHttp(() => url);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-evaluations-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports contradictions and overlaps with existing guidelines and among the payloads, with progress, deterministically', async () => {
    const refund = await created('/guidelines', {
      condition: 'The customer asks for a refund of their order',
      action: 'Offer a full refund',
    });
    await created('/guidelines', { condition: 'The customer asks about the weather', action: 'Say you cannot forecast the weather' });
    const body = {
      payloads: [
        guideline('The customer wants a refund for an order', 'Never offer a refund'),
        guideline('Customer asks for refund of order', 'Explain the refund policy'),
        guideline('The customer asks for a discount code', 'Give the code WELCOME10'),
        guideline('The customer asks for a discount code', 'Do not give any discount code'),
      ],
    };
    const started = await created<Evaluation>('/evaluations', body);
    expect(started).toMatchObject({ status: 'pending', progress: 0, invoices: [] });
    const done = (await call(`/evaluations/${started.id}?wait_for_completion=30`)).body as Evaluation;
    expect(done).toMatchObject({ id: started.id, status: 'completed', progress: 100 });
    expect(done.invoices.map((i) => i.approved)).toEqual([false, true, true, false]);
    const [contradicting, overlapping, fresh, contradictsPayload] = done.invoices.map((i) => i.data!.guideline.properties_proposition);
    expect(contradicting!.contradictions.map((f) => f.guideline_id)).toEqual([refund.id]);
    expect(overlapping!.contradictions).toEqual([]);
    expect(overlapping!.overlaps.map((f) => f.guideline_id)).toContain(refund.id);
    expect(fresh).toEqual({ contradictions: [], overlaps: [] });
    expect(contradictsPayload!.contradictions.map((f) => f.guideline_id)).toEqual(['payload:2']);
    expect(done.invoices[0]!.payload).toEqual(body.payloads[0]);
    expect(done.invoices[0]!.data!.guideline.action_proposition).toBe('Never offer a refund');

    // The same payloads against the same guidelines give the same answer (checksums included).
    const again = (await call(`/evaluations/${(await created<Evaluation>('/evaluations', body)).id}?wait_for_completion=30`))
      .body as Evaluation;
    expect(again.invoices).toEqual(done.invoices);
  });

  it('an update is checked against the other guidelines, not the one it replaces', async () => {
    const old = await created('/guidelines', {
      condition: 'The customer asks to cancel a subscription',
      action: 'Cancel the subscription',
    });
    const evaluation = await created<Evaluation>('/evaluations', {
      payloads: [
        guideline('The customer asks to cancel the subscription', 'Do not cancel the subscription', {
          operation: 'update',
          updated_id: old.id,
        }),
      ],
    });
    const done = (await call(`/evaluations/${evaluation.id}?wait_for_completion=30`)).body as Evaluation;
    expect(done.invoices[0]).toMatchObject({ approved: true });
  });

  it('refuses bad payloads with a 422 naming the field; unknown evaluations are 404', async () => {
    const bad = await call('/evaluations', 'POST', {
      payloads: [{ kind: 'journey', guideline: { content: { condition: '' }, tool_ids: [], operation: 'update' } }],
    });
    expect(bad.status).toBe(422);
    expect(
      details(bad)
        .map((d) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.payloads.0.guideline.content.condition', 'body.payloads.0.guideline.updated_id', 'body.payloads.0.kind']);
    const ghost = await call('/evaluations', 'POST', { payloads: [guideline('c', 'a', { operation: 'update', updated_id: 'ghost' })] });
    expect(ghost.status).toBe(422);
    expect(details(ghost)[0]!.loc).toEqual(['body', 'payloads', 0, 'guideline', 'updated_id']);
    expect((await call('/evaluations', 'POST', { payloads: [] })).status).toBe(422);
    expect((await call('/evaluations/nope?wait_for_completion=0')).status).toBe(404);
    expect((await call('/evaluations/nope?wait_for_completion=x')).status).toBe(422);
  });
});
