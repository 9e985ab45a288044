import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsPasswordVariable, renderNatsWorkspaceConfig, workspaceInboxPrefix } from '@tenet/contracts';
import {
  deleteRedisKeys,
  describeWithService,
  eventually,
  freePort,
  killGroup,
  probeRedis,
  redisUrl,
  runCommand,
  startOwnNats,
  waitHealthy,
  type OwnServer,
  type RunningCommand,
} from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;
const redis = await probeRedis();

interface Seen {
  subject: string;
  payload: { id: string; type: string; version: number; workspace_id?: string; data: { session_id?: string } };
}

/**
 * Subject isolation (ADR 0018): Tenet as a real process (all-in-one, distributed mode, auth on) over its
 * own nats-server started with the generated workspace configuration (users with permissions, a namespace, a
 * password for the services user). Two workspaces each create an agent, a session and a customer message; the acme
 * user receives acme's v2 events — live and through its durable consumer — and none of globex's, and the server
 * refuses it every other subject.
 */
describeWithService(redis, 'workspace NATS users (own nats-server with permissions, Tenet process, auth on)', () => {
  const namespace = `ws${randomUUID().slice(0, 8)}`;
  const redisPrefix = `tenet-nats-ws-${randomUUID()}`;
  const stream = `TENET_V2_${namespace}`;
  // nats-server parses a variable's value as a config value: a password must read as a string (docs/nats-workspaces.md).
  const password = (): string => `p${randomBytes(18).toString('hex')}`;
  const passwords = { tenet: password(), acme: password(), globex: password() };
  const adminKey = `bootstrap-${randomBytes(24).toString('base64url')}`;
  let dir: string;
  let nats: OwnServer;
  let tenet: RunningCommand | undefined;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-nats-workspaces-'));
    const config = join(dir, 'nats.conf');
    writeFileSync(config, renderNatsWorkspaceConfig({ workspaces: ['acme', 'globex'], namespace }));
    nats = await startOwnNats({
      config,
      env: Object.fromEntries(Object.entries(passwords).map(([user, password]) => [natsPasswordVariable(user), password])),
    });
  });

  afterAll(async () => {
    if (tenet) killGroup(tenet);
    for (const nc of connections) await nc.close().catch(() => undefined);
    await nats?.dispose();
    await deleteRedisKeys(redisUrl(), redisPrefix).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  const login = async (user: keyof typeof passwords): Promise<NatsConnection> => {
    const nc = await connect({
      servers: nats.url,
      user,
      pass: passwords[user],
      ...(user === 'tenet' ? {} : { inboxPrefix: workspaceInboxPrefix(user) }),
    });
    connections.push(nc);
    return nc;
  };

  it("a workspace's NATS user receives its workspace's events and none of another's, and may subscribe to nothing else", async () => {
    // Tenet refuses a NATS server it cannot log in to (the services user's password is part of NATS_URL).
    const port = await freePort();
    const servicesUrl = `nats://tenet:${passwords.tenet}@127.0.0.1:${nats.port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TENET_MODE: 'distributed',
      PORT: String(port),
      NATS_URL: servicesUrl,
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: redisPrefix,
      TENET_NAMESPACE: namespace,
      TENET_DATA_DIR: join(dir, 'data'),
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: adminKey,
    };
    delete env['OPENAI_API_KEY'];
    delete env['ANTHROPIC_API_KEY'];
    tenet = runCommand('node --import @swc-node/register/esm-register apps/tenet/src/main.ts', { cwd: root, env });
    const base = `http://127.0.0.1:${port}`;
    const health = await waitHealthy(base, tenet, 400_000);
    expect(health).toMatchObject({ status: 'ok', mode: 'distributed' });
    expect(JSON.stringify(health)).not.toContain(passwords.tenet);

    const call = async (
      method: string,
      path: string,
      key: string,
      body?: unknown,
    ): Promise<{ status: number; body: Record<string, unknown> }> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };

    // The operator's services user sees everything: every event as v1 and as v2.
    const services = await login('tenet');
    const all: Seen[] = [];
    services.subscribe(`${namespace}.tenet.>`, { callback: (_error, msg) => void all.push({ subject: msg.subject, payload: msg.json() }) });

    // acme: live subscription on its prefix, and its durable consumer on the v2 stream, filtered to its prefix.
    const acme = await login('acme');
    const live: Seen[] = [];
    acme.subscribe(`${namespace}.tenet.v2.acme.>`, {
      callback: (_error, msg) => void live.push({ subject: msg.subject, payload: msg.json() }),
    });
    await Promise.all([services.flush(), acme.flush()]);
    const acmeJsm = await jetstreamManager(acme, { checkAPI: false });
    // A consumer of acme's name with a wider filter than its create subject says is refused by the server.
    const widened = await acme.request(
      `$JS.API.CONSUMER.CREATE.${stream}.acme.${namespace}.tenet.v2.acme.>`,
      JSON.stringify({
        stream_name: stream,
        config: { durable_name: 'acme', filter_subject: `${namespace}.tenet.v2.>`, ack_policy: 'explicit' },
      }),
    );
    expect(widened.json<{ error?: { description: string } }>().error?.description).toBeDefined();
    await acmeJsm.consumers.add(stream, {
      durable_name: 'acme',
      filter_subject: `${namespace}.tenet.v2.acme.>`,
      ack_policy: AckPolicy.Explicit,
    });
    await expect(
      acmeJsm.consumers.add(stream, { durable_name: 'acme', filter_subject: `${namespace}.tenet.v2.>`, ack_policy: AckPolicy.Explicit }),
    ).rejects.toThrow(/Permissions Violation/);
    await expect(
      acmeJsm.consumers.add(stream, {
        durable_name: 'globex',
        filter_subject: `${namespace}.tenet.v2.globex.>`,
        ack_policy: AckPolicy.Explicit,
      }),
    ).rejects.toThrow(/Permissions Violation/);

    // Each workspace: an admin key, an agent, a session and a customer message.
    const sessions: Record<'acme' | 'globex', string> = { acme: '', globex: '' };
    const agents: Record<'acme' | 'globex', string> = { acme: '', globex: '' };
    for (const workspace of ['acme', 'globex'] as const) {
      const key = await call('POST', '/keys', adminKey, { name: `${workspace} ops`, role: 'admin', workspace_id: workspace });
      expect(key.status).toBe(201);
      const agent = await call('POST', '/agents', key.body['key'] as string, { name: `${workspace} support` });
      expect(agent.status).toBe(201);
      agents[workspace] = agent.body['id'] as string;
      const session = await call('POST', '/sessions', key.body['key'] as string, { agent_id: agent.body['id'] });
      expect(session.status).toBe(201);
      sessions[workspace] = session.body['id'] as string;
      expect(
        (
          await call('POST', `/sessions/${sessions[workspace]}/events`, key.body['key'] as string, {
            kind: 'message',
            source: 'customer',
            message: `hello from ${workspace}`,
          })
        ).status,
      ).toBe(201);
    }

    // Both customer messages were published, each under its own workspace, as v1 and v2.
    const message = (workspace: 'acme' | 'globex', major: 'v1' | 'v2') =>
      all.find(
        (e) =>
          e.payload.type === 'session.message_created' &&
          e.payload.data.session_id === sessions[workspace] &&
          e.subject.startsWith(`${namespace}.tenet.${major}.`),
      );
    await eventually(
      () => {
        for (const workspace of ['acme', 'globex'] as const) {
          expect(message(workspace, 'v2')).toMatchObject({
            subject: `${namespace}.tenet.v2.${workspace}.session.${sessions[workspace]}.message_created`,
            payload: { version: 2, workspace_id: workspace },
          });
          expect(message(workspace, 'v1')?.payload.id).toBe(message(workspace, 'v2')?.payload.id);
        }
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    // The turns' LLM usage is anchored at the agent: each under its agent's workspace.
    await eventually(
      () => {
        for (const workspace of ['acme', 'globex'] as const) {
          expect(
            all.some((e) => e.subject.startsWith(`${namespace}.tenet.v2.${workspace}.metering.${agents[workspace]}.llm_usage_recorded`)),
          ).toBe(true);
        }
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    // acme's live subscription: acme's message and usage, and only acme's events.
    await eventually(() => expect(live.some((e) => e.payload.id === message('acme', 'v2')!.payload.id)).toBe(true), { timeoutMs: 30_000 });
    expect(live.some((e) => e.payload.type === 'metering.llm_usage_recorded')).toBe(true);
    await services.flush();
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // what the server would have routed to acme has arrived
    const globexEvents = all.filter((e) => e.subject.startsWith(`${namespace}.tenet.v2.globex.`));
    expect(globexEvents.length).toBeGreaterThan(0);
    expect(live.every((e) => e.subject.startsWith(`${namespace}.tenet.v2.acme.`) && e.payload.workspace_id === 'acme')).toBe(true);
    expect(live.filter((e) => JSON.stringify(e).includes(sessions.globex))).toEqual([]);

    // acme's durable consumer: the same, from the stream.
    const consumer = await jetstream(acme).consumers.get(stream, 'acme');
    const durable: Seen[] = [];
    await eventually(
      async () => {
        const batch = await consumer.fetch({ max_messages: 100, expires: 1_000 });
        for await (const msg of batch) {
          durable.push({ subject: msg.subject, payload: msg.json() });
          msg.ack();
        }
        expect(durable.some((e) => e.payload.id === message('acme', 'v2')!.payload.id)).toBe(true);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(durable.every((e) => e.subject.startsWith(`${namespace}.tenet.v2.acme.`) && e.payload.workspace_id === 'acme')).toBe(true);

    // Everything else is refused by the server: another workspace, v1, the shared inbox, another's consumer.
    for (const subject of [`${namespace}.tenet.v2.globex.>`, `${namespace}.tenet.v1.>`, `${namespace}.tenet.>`, '_INBOX.>', '>']) {
      const refused = acme.subscribe(subject);
      expect(String(await refused.closed)).toMatch(
        new RegExp(`Permissions Violation for Subscription to "${subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
      );
    }
    await expect(
      acme.request(`$JS.API.CONSUMER.MSG.NEXT.${stream}.globex`, JSON.stringify({ batch: 1 }), { timeout: 5_000 }),
    ).rejects.toThrow(/Permissions Violation|permission/i);
    await expect(acmeJsm.streams.info(stream)).rejects.toThrow(/Permissions Violation|permission/i);
    // The services user's password appears in no output of Tenet's.
    expect(tenet.output()).not.toContain(passwords.tenet);
  }, 600_000);
});
