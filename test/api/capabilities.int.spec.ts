import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { gatewayHttp } from './support/gateway-http.js';

interface Event {
  kind: string;
  source: string;
  data: { message?: string; status?: string; data?: { capability_ids?: string[]; usage?: { purpose: string }[] } };
}

describe('capabilities (Parlant /capabilities) and their use in the turn (all-in-one, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created, details, turn: turnOf } = gatewayHttp(() => url);

  /** Sends a customer message and returns the turn's reply and ready status. */
  const turn = async (agentId: string, message: string): Promise<{ reply: Event; ready: Event }> => {
    const { reply, ready } = await turnOf<Event>(agentId, message);
    expect(ready && reply).toBeTruthy();
    return { reply: reply!, ready: ready! };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-capabilities-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, lists (by tag), updates (tags add/remove) and deletes a capability', async () => {
    const tag = await created('/tags', { name: 'retail' });
    const capability = await created<{ id: string }>('/capabilities', {
      title: 'Order tracking',
      description: 'Look up where an order is',
      signals: ['where is my order'],
      tags: [tag.id],
    });
    expect((await call(`/capabilities/${capability.id}`)).body).toMatchObject({
      title: 'Order tracking',
      description: 'Look up where an order is',
      signals: ['where is my order'],
      tags: [tag.id],
    });
    expect(((await call(`/capabilities?tag_id=${tag.id}`)).body as { id: string }[]).map((c) => c.id)).toEqual([capability.id]);
    const updated = await call(`/capabilities/${capability.id}`, 'PATCH', {
      title: 'Track orders',
      signals: ['track my package'],
      tags: { remove: [tag.id] },
    });
    expect(updated.body).toMatchObject({ title: 'Track orders', signals: ['track my package'], tags: [] });
    expect((await call(`/capabilities?tag_id=${tag.id}`)).body).toEqual([]);
    expect((await call(`/capabilities/${capability.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/capabilities/${capability.id}`)).status).toBe(404);
    expect((await call(`/capabilities/${capability.id}`, 'DELETE')).status).toBe(404);
  });

  it('refuses bad input with a 422 naming each field, and unknown tags', async () => {
    const bad = await call('/capabilities', 'POST', { title: '', signals: 'x' });
    expect(bad.status).toBe(422);
    expect([...new Set(details(bad).map((d) => d.loc.join('.')))].sort()).toEqual(['body.description', 'body.signals', 'body.title']);
    const ghost = await call('/capabilities', 'POST', { title: 't', description: 'd', signals: [], tags: ['ghost'] });
    expect(ghost.status).toBe(422);
    expect(details(ghost)[0]!.loc).toEqual(['body', 'tags', 0]);
  });

  it('the most relevant capabilities inform the reply, with no extra LLM call however many the agent has', async () => {
    const plain = (await created('/agents', { name: 'Plain' })).id;
    const agent = (await created('/agents', { name: 'Ada' })).id;
    const other = (await created('/agents', { name: 'Other' })).id;
    const tracking = await created('/capabilities', {
      title: 'Order tracking',
      description: 'I can look up where your package is.',
      signals: ['where is my order', 'track my package'],
      tags: [`agent:${agent}`],
    });
    await created('/capabilities', {
      title: 'Gift cards',
      description: 'I can sell gift cards.',
      signals: ['buy a gift card'],
      tags: [`agent:${agent}`],
    });
    await created('/capabilities', {
      title: 'Package forwarding',
      description: 'Forward a package abroad.',
      signals: ['forward my package'],
      tags: [`agent:${other}`],
    });
    for (let i = 0; i < 40; i++)
      await created('/capabilities', {
        title: `Service ${i}`,
        description: `Unrelated offer number ${i}`,
        signals: [`thing ${i}`],
        tags: [`agent:${agent}`],
      });

    const withCapabilities = await turn(agent, 'Where is my package? I want to track it.');
    expect(withCapabilities.ready.data.data?.capability_ids?.[0]).toBe(tracking.id);
    expect(withCapabilities.ready.data.data?.capability_ids?.length).toBeLessThanOrEqual(3);
    expect(withCapabilities.reply.data.message).toContain('look up where your package is');

    const without = await turn(plain, 'Where is my package? I want to track it.');
    expect(without.ready.data.data?.capability_ids).toBeUndefined();
    expect(without.reply.data.message).not.toContain('look up where your package is');
    // The same calls: ranking capabilities costs no LLM call.
    expect(withCapabilities.ready.data.data?.usage?.map((u) => u.purpose)).toEqual(without.ready.data.data?.usage?.map((u) => u.purpose));
  });
});
