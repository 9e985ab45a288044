/**
 * Channel gateway benchmark (ADR 0025): the latency a channel adds to a message on its way in and to a reply on its
 * way out, next to the floor measured in the same run.
 *
 *   npm run bench:channels
 *
 * All-in-one embedded (startAllInOne in this process), a generic webhook channel whose outbound URL is a local
 * receiver, the session in `manual` mode (no turn runs: what is measured is the channel, not the agent).
 * - **Inbound → customer event**: a signed `POST /channels/{id}/inbound` until the customer event is in the session
 *   (a long-poll `GET /sessions/{id}/events` opened before the POST returns it). Floor: the same three HTTP exchanges
 *   against a bare server — the platform's POST, the POST of the event, the long-poll GET it completes.
 * - **Agent message → delivery**: `POST /sessions/{id}/events` (a human agent's message) until the receiver has the
 *   signed delivery. Floor: a POST to a bare server that POSTs on to the receiver.
 * BENCH_MESSAGES (200) per measurement, Tenet and floor alternating message by message, after a warm-up. Besides the
 * latency, the process's CPU time from a message's start to its end (`process.cpuUsage`, user + system): on a shared
 * machine it moves less with the load than the latency does, so it is the steadier way to compare two builds.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@tenet/channels-service';
import { startAllInOne } from '@tenet/hosts';
import { generateSecretsKey } from '@tenet/secrets';
import { median, quantile } from './turn-support.js';

const MESSAGES = Number(process.env['BENCH_MESSAGES'] ?? 200);
const SECRET = randomBytes(24).toString('hex');
const now = (): number => Number(process.hrtime.bigint()) / 1e6;
/** CPU milliseconds (user + system) this process used since `since`. */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** One measured message: its latency and the CPU the process spent on it meanwhile. */
interface Sample {
  ms: number;
  cpu: number;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

/** Receives deliveries (Tenet's and the floor's) and reports when each arrived. */
function receiver(): { server: Server; next: () => Promise<number> } {
  let waiting: ((at: number) => void) | undefined;
  const server = createServer((req, res) => {
    void readBody(req).then(() => {
      const at = now();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      waiting?.(at);
      waiting = undefined;
    });
  });
  return { server, next: () => new Promise<number>((resolve) => (waiting = resolve)) };
}

/**
 * The floor's bare server, doing nothing but the HTTP exchanges the channel's paths make: `POST /in` (the platform's
 * request) answers and POSTs on to `/event` (the customer event), which completes a pending `GET /wait` (the
 * long-poll); `POST /relay` POSTs on to the receiver (the delivery).
 */
function bareServer(selfUrl: () => string, receiverUrl: () => string): Server {
  let pending: ((body: string) => void) | undefined;
  return createServer((req, res) => {
    if (req.method === 'GET') {
      pending = (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    void readBody(req).then(async (body) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (req.url === '/relay') await fetch(receiverUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      else if (req.url === '/in')
        await fetch(`${selfUrl()}/event`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      else pending?.(body);
    });
  });
}

const stats = (values: number[]): { p50: number; p99: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: median(sorted), p99: quantile(sorted, 0.99) };
};

async function main(): Promise<void> {
  process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-channels-'));
  const out = receiver();
  const outUrl = await listen(out.server);
  let bareUrl = '';
  const bare = bareServer(
    () => bareUrl,
    () => outUrl,
  );
  bareUrl = await listen(bare);
  // The receiver listens on 127.0.0.1: the webhook channel delivers there only with this setting.
  process.env['TENET_CHANNELS_ALLOW_PRIVATE_TARGETS'] = 'on';
  const { app, url } = await startAllInOne({
    TENET_MODE: 'embedded',
    TENET_DATA_DIR: dir,
    TENET_DEMO: 'off',
    TENET_LLM_PROVIDER: 'offline',
    TENET_LOG_LEVEL: 'error',
  });
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  try {
    const agent = await json<{ id: string }>('POST', '/agents', { name: 'Bench' });
    await json('PUT', '/bindings/default-agent', { agent_id: agent.id });
    const channel = await json<{ id: string }>('POST', '/channels', {
      kind: 'webhook',
      name: 'bench',
      credentials: { signing_secret: SECRET },
      settings: { outbound_url: outUrl },
    });
    const inbound = async (text: string): Promise<void> => {
      const raw = JSON.stringify({ message_id: randomUUID(), sender: { id: 'bench-user' }, conversation_id: 'bench', text });
      const response = await fetch(`${url}/channels/${channel.id}/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenet-signature': signWebhook(SECRET, raw, Date.now()) },
        body: raw,
      });
      await response.arrayBuffer();
    };
    // The conversation's session: opened by its first message, then switched to manual (no turns).
    await inbound('warm-up');
    let sessionId: string | undefined;
    for (let i = 0; i < 200 && !sessionId; i++) {
      sessionId = (await json<Array<{ id: string }>>('GET', `/sessions?agent_id=${agent.id}`))[0]?.id;
      if (!sessionId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!sessionId) throw new Error('the warm-up message opened no session');
    await json('PATCH', `/sessions/${sessionId}`, { mode: 'manual' });
    let offset = (await json<Array<{ offset: number }>>('GET', `/sessions/${sessionId}/events`)).at(-1)!.offset + 1;

    const tenetInbound = async (): Promise<Sample> => {
      const cpu = process.cpuUsage();
      const waiting = fetch(`${url}/sessions/${sessionId}/events?min_offset=${offset}&kinds=message&wait_for_data=30`).then(async (r) => ({
        at: now(),
        events: (await r.json()) as Array<{ offset: number }>,
      }));
      const start = now();
      await inbound(`hello ${start}`);
      const { at, events } = await waiting;
      offset = events.at(-1)!.offset + 1;
      return { ms: at - start, cpu: cpuMs(cpu) };
    };
    const floorInbound = async (): Promise<Sample> => {
      const cpu = process.cpuUsage();
      const waiting = fetch(`${bareUrl}/wait`).then(async (r) => (await r.text(), now()));
      await new Promise((resolve) => setImmediate(resolve));
      const start = now();
      await (
        await fetch(`${bareUrl}/in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message_id: randomUUID(), text: 'hello' }),
        })
      ).arrayBuffer();
      const at = await waiting;
      return { ms: at - start, cpu: cpuMs(cpu) };
    };
    const tenetDelivery = async (): Promise<Sample> => {
      const cpu = process.cpuUsage();
      const arrived = out.next();
      const start = now();
      await json('POST', `/sessions/${sessionId}/events`, {
        kind: 'message',
        source: 'human_agent',
        message: `reply ${start}`,
        participant: { display_name: 'Bench' },
      });
      const at = await arrived;
      offset += 1;
      return { ms: at - start, cpu: cpuMs(cpu) };
    };
    const floorDelivery = async (): Promise<Sample> => {
      const cpu = process.cpuUsage();
      const arrived = out.next();
      const start = now();
      await (
        await fetch(`${bareUrl}/relay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'reply' }),
        })
      ).arrayBuffer();
      const at = await arrived;
      return { ms: at - start, cpu: cpuMs(cpu) };
    };

    for (let i = 0; i < 20; i++) {
      await tenetInbound();
      await floorInbound();
      await tenetDelivery();
      await floorDelivery();
    }
    const results = {
      tenetInbound: [] as Sample[],
      floorInbound: [] as Sample[],
      tenetDelivery: [] as Sample[],
      floorDelivery: [] as Sample[],
    };
    for (let i = 0; i < MESSAGES; i++) {
      results.tenetInbound.push(await tenetInbound());
      results.floorInbound.push(await floorInbound());
    }
    for (let i = 0; i < MESSAGES; i++) {
      results.tenetDelivery.push(await tenetDelivery());
      results.floorDelivery.push(await floorDelivery());
    }
    const row = (name: string, tenet: Sample[], floor: Sample[]): string => {
      const t = stats(tenet.map((s) => s.ms));
      const f = stats(floor.map((s) => s.ms));
      const tCpu = stats(tenet.map((s) => s.cpu)).p50;
      const fCpu = stats(floor.map((s) => s.cpu)).p50;
      return `| ${name} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} | ${(t.p50 - f.p50).toFixed(2)} | ${fCpu.toFixed(2)} | ${tCpu.toFixed(2)} |`;
    };
    console.log(`\n${MESSAGES} messages per measurement, node ${process.version}, all-in-one embedded, webhook channel\n`);
    console.log(
      '| path | floor p50 ms | floor p99 ms | Tenet p50 ms | Tenet p99 ms | overhead p50 ms | floor CPU p50 ms | Tenet CPU p50 ms |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    console.log(row('inbound → customer event', results.tenetInbound, results.floorInbound));
    console.log(row('agent message → delivery', results.tenetDelivery, results.floorDelivery));
  } finally {
    await app.close();
    out.server.closeAllConnections();
    bare.closeAllConnections();
    await new Promise((resolve) => out.server.close(resolve));
    await new Promise((resolve) => bare.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
