import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { generateSecretsKey } from '@tenet/secrets';
import { jsonClient } from './support/http.js';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-bindings-test-0123456789';

interface BindingView {
  id: string;
  agent_id: string;
  channel: string | null;
  peer_id: string | null;
  account_id: string | null;
  workspace_id: string;
}

describe('/bindings and /channels (auth on, two workspaces)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let acme: string;
  let globex: string;
  let acmeAgent: string;
  let globexAgent: string;
  const saved = { ...process.env };
  let key: string | undefined;
  const call = jsonClient(
    () => url,
    () => key,
  );
  const as = async <T>(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    key = who;
    return call<T>(method, path, body);
  };

  beforeAll(async () => {
    process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
    process.env['TENET_CHANNELS_API_KEY'] = ADMIN_KEY;
    dir = mkdtempSync(join(tmpdir(), 'tenet-bindings-'));
    ({ app, url } = await startAllInOne({
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: ADMIN_KEY,
      TENET_RATE_LIMIT_PER_KEY: '0',
    }));
    acme = (await as<{ key: string }>(ADMIN_KEY, 'POST', '/keys', { name: 'acme', role: 'admin', workspace_id: 'acme' })).body.key;
    globex = (await as<{ key: string }>(ADMIN_KEY, 'POST', '/keys', { name: 'globex', role: 'admin', workspace_id: 'globex' })).body.key;
    acmeAgent = (await as<{ id: string }>(acme, 'POST', '/agents', { name: 'Acme bot' })).body.id;
    globexAgent = (await as<{ id: string }>(globex, 'POST', '/agents', { name: 'Globex bot' })).body.id;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
    process.env = saved;
  });

  it('creates, reads, lists, patches and deletes a binding of the caller’s workspace', async () => {
    const created = await as<BindingView>(acme, 'POST', '/bindings', { agent_id: acmeAgent, channel: 'telegram', account_id: '123' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      agent_id: acmeAgent,
      channel: 'telegram',
      account_id: '123',
      peer_id: null,
      workspace_id: 'acme',
    });
    expect((await as<BindingView>(acme, 'GET', `/bindings/${created.body.id}`)).body.id).toBe(created.body.id);
    const patched = await as<BindingView>(acme, 'PATCH', `/bindings/${created.body.id}`, { peer_id: 'p1', account_id: null });
    expect(patched.body).toMatchObject({ peer_id: 'p1', account_id: null, channel: 'telegram' });
    expect((await as<BindingView[]>(acme, 'GET', '/bindings')).body.map((b) => b.id)).toEqual([created.body.id]);
    // Another workspace sees nothing of it.
    expect((await as<BindingView[]>(globex, 'GET', '/bindings')).body).toEqual([]);
    expect((await as(globex, 'GET', `/bindings/${created.body.id}`)).status).toBe(404);
    expect((await as(globex, 'PATCH', `/bindings/${created.body.id}`, { peer_id: 'x' })).status).toBe(404);
    expect((await as(globex, 'DELETE', `/bindings/${created.body.id}`)).status).toBe(404);
    expect((await as(acme, 'DELETE', `/bindings/${created.body.id}`)).status).toBe(204);
    expect((await as(acme, 'GET', `/bindings/${created.body.id}`)).status).toBe(404);
  });

  it('refuses bad bindings with a 422 naming the field, on PATCH exactly as on POST', async () => {
    expect(await as(acme, 'POST', '/bindings', { agent_id: acmeAgent })).toEqual({
      status: 422,
      body: {
        detail: [
          { loc: ['body'], msg: 'a binding must set at least one of peer_id, guild_id, team_id, account_id, channel', type: 'value_error' },
        ],
      },
    });
    // An agent nobody has: in the default workspace the binding is refused naming agent_id; in another workspace the
    // edge already answers 404 for an agent_id that is not the workspace's (ADR 0018: no existence oracle).
    expect((await as(ADMIN_KEY, 'POST', '/bindings', { agent_id: 'no-such-agent', channel: 'slack' })).body).toEqual({
      detail: [
        {
          loc: ['body', 'agent_id'],
          msg: 'agent_id must name an existing agent of this workspace; no-such-agent does not exist',
          type: 'value_error.missing_reference',
        },
      ],
    });
    expect((await as(acme, 'POST', '/bindings', { agent_id: 'no-such-agent', channel: 'slack' })).status).toBe(404);
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/bindings', { agent_id: acmeAgent, channel: 'Tele Gram' })).body
        .detail[0]!.loc,
    ).toEqual(['body', 'channel']);
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/bindings', { agent_id: acmeAgent, peer_id: 42 })).body.detail[0]!
        .loc,
    ).toEqual(['body', 'peer_id']);
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/bindings', { agent_id: acmeAgent, channel: 'x', colour: 'red' }))
        .status,
    ).toBe(422);
    // Another workspace's agent does not exist for this one (the edge answers 404, as for any foreign reference).
    expect((await as(acme, 'POST', '/bindings', { agent_id: globexAgent, channel: 'slack' })).status).toBe(404);

    const binding = (await as<BindingView>(acme, 'POST', '/bindings', { agent_id: acmeAgent, channel: 'slack' })).body;
    expect((await as(acme, 'PATCH', `/bindings/${binding.id}`, { channel: null })).body).toEqual({
      detail: [
        { loc: ['body'], msg: 'a binding must set at least one of peer_id, guild_id, team_id, account_id, channel', type: 'value_error' },
      ],
    });
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'PATCH', `/bindings/${binding.id}`, { agent_id: 123 })).body.detail[0]!.loc,
    ).toEqual(['body', 'agent_id']);
    expect((await as(acme, 'PATCH', `/bindings/${binding.id}`, { agent_id: globexAgent })).status).toBe(404);
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'PATCH', `/bindings/${binding.id}`, { peer_id: '' })).body.detail[0]!.loc,
    ).toEqual(['body', 'peer_id']);
    // Nothing of the refused changes was stored.
    expect((await as<BindingView>(acme, 'GET', `/bindings/${binding.id}`)).body).toMatchObject({
      agent_id: acmeAgent,
      channel: 'slack',
      peer_id: null,
    });
    await as(acme, 'DELETE', `/bindings/${binding.id}`);
  });

  it('/bindings/resolve says which binding wins and why; the default agent is per workspace', async () => {
    const byChannel = (await as<BindingView>(acme, 'POST', '/bindings', { agent_id: acmeAgent, channel: 'telegram' })).body;
    const second = (await as<{ id: string }>(acme, 'POST', '/agents', { name: 'Acme VIP' })).body.id;
    const byPeer = (await as<BindingView>(acme, 'POST', '/bindings', { agent_id: second, peer_id: '42' })).body;
    const resolved = await as<Record<string, unknown>>(acme, 'GET', '/bindings/resolve?channel=telegram&peer_id=42');
    expect(resolved.body).toMatchObject({ outcome: 'binding', agent_id: second, binding_id: byPeer.id, rank: 'peer_id' });
    expect(resolved.body['reason']).toBe(
      `binding ${byPeer.id} matches on peer_id and outranks 1 other matching binding (order: peer_id → guild_id → team_id → account_id → channel → default agent)`,
    );
    expect((await as(acme, 'GET', '/bindings/resolve?channel=slack')).body).toMatchObject({ outcome: 'refused', agent_id: null });
    expect((await as(acme, 'GET', '/bindings/resolve')).status).toBe(422);

    expect((await as(ADMIN_KEY, 'PUT', '/bindings/default-agent', { agent_id: 'nope' })).status).toBe(422);
    expect((await as(acme, 'PUT', '/bindings/default-agent', { agent_id: globexAgent })).status).toBe(404);
    expect((await as(acme, 'PUT', '/bindings/default-agent', { agent_id: acmeAgent })).status).toBe(200);
    expect((await as(acme, 'GET', '/bindings/resolve?channel=slack')).body).toMatchObject({
      outcome: 'default',
      agent_id: acmeAgent,
      rank: 'default_agent',
    });
    expect((await as(globex, 'GET', '/bindings/default-agent')).body).toEqual({ agent_id: null });
    expect((await as(globex, 'GET', '/bindings/resolve?channel=telegram&peer_id=42')).body).toMatchObject({ outcome: 'refused' });
    for (const b of [byChannel, byPeer]) await as(acme, 'DELETE', `/bindings/${b.id}`);
  });

  it('channels: credentials checked per kind (422 naming the field), never returned, confined to the workspace', async () => {
    const bad = await as<{ detail: Array<{ loc: unknown[]; msg: string }> }>(acme, 'POST', '/channels', {
      kind: 'telegram',
      name: 'Bot',
      credentials: { bot_token: 'nope', secret_token: 'has spaces' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d) => d.loc)).toEqual([
      ['body', 'credentials', 'bot_token'],
      ['body', 'credentials', 'secret_token'],
    ]);
    expect(
      (await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/channels', { kind: 'fax', name: 'x', credentials: {} })).body
        .detail[0]!.loc,
    ).toEqual(['body', 'kind']);
    expect(
      (
        await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/channels', {
          kind: 'webhook',
          name: 'x',
          credentials: { signing_secret: 'short' },
          settings: { outbound_url: 'https://x.test/in' },
        })
      ).body.detail[0]!.loc,
    ).toEqual(['body', 'credentials', 'signing_secret']);
    expect(
      (
        await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'POST', '/channels', {
          kind: 'webhook',
          name: 'x',
          credentials: { signing_secret: 'x'.repeat(40) },
          settings: { outbound_url: 'ftp://x' },
        })
      ).body.detail[0]!.loc,
    ).toEqual(['body', 'settings', 'outbound_url']);
    const token = `123456:${'A'.repeat(35)}`;
    const created = await as<{ id: string; account_id: string; credentials: unknown }>(acme, 'POST', '/channels', {
      kind: 'telegram',
      name: 'Bot',
      credentials: { bot_token: token, secret_token: 'tg-secret_1234567890' },
    });
    expect(created.status).toBe(201);
    expect(created.body.account_id).toBe('123456');
    expect(created.body.credentials).toEqual({ bot_token: { set: true, hint: '…AAAA' }, secret_token: { set: true, hint: '…7890' } });
    expect(JSON.stringify(created.body)).not.toContain(token);
    // PATCH is checked like POST.
    expect(
      (
        await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'PATCH', `/channels/${created.body.id}`, {
          credentials: { bot_token: token },
        })
      ).body.detail[0]!.loc,
    ).toEqual(['body', 'credentials', 'secret_token']);
    expect(
      (
        await as<{ detail: Array<{ loc: unknown[] }> }>(acme, 'PATCH', `/channels/${created.body.id}`, {
          settings: { api_root: 'not a url' },
        })
      ).body.detail[0]!.loc,
    ).toEqual(['body', 'settings', 'api_root']);
    expect((await as<{ name: string }>(acme, 'PATCH', `/channels/${created.body.id}`, { name: 'Renamed' })).body.name).toBe('Renamed');
    expect((await as(globex, 'GET', `/channels/${created.body.id}`)).status).toBe(404);
    expect((await as<unknown[]>(globex, 'GET', '/channels')).body).toEqual([]);
    // The inbound URL needs no Tenet key — but the platform's signature.
    key = undefined;
    expect((await call('POST', `/channels/${created.body.id}/inbound`, { update_id: 1 })).status).toBe(401);
    expect((await as(acme, 'DELETE', `/channels/${created.body.id}`)).status).toBe(204);
  });
});
