/**
 * Shared parts of the turn benchmark (bench/turn.bench.ts) and its child processes (bench/turn-process.ts):
 * the zero-latency LLM provider, the floor turn, a minimal HTTP server and client, and the statistics.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStore } from '@tenet/event-store';
import {
  COMPOSE_REPLY,
  MATCH_GUIDELINES,
  type ComposeReplyInput,
  type ComposeReplyOutput,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from '@tenet/llm';

/**
 * An LLM that answers at once with fixed usage: the first two guidelines score 0.9, the rest 0.1, and the reply
 * cites every matched action. No schema validation, no I/O — whatever a turn costs beyond this is the platform.
 */
export class ZeroLatencyProvider implements LlmProvider {
  readonly name = 'zero';
  readonly model = 'zero-latency-1';

  async generate<I, O>(req: LlmRequest<I>): Promise<LlmResponse<O>> {
    let value: MatchGuidelinesOutput | ComposeReplyOutput;
    if (req.task.kind === MATCH_GUIDELINES) {
      const input = req.task.input as MatchGuidelinesInput;
      value = {
        matches: input.guidelines.map((g, i) => ({
          guideline_id: g.id,
          relevance: i < 2 ? 0.9 : 0.1,
          confidence: 0.9,
          reasoning: 'fixed',
          tool_arguments: [],
        })),
      };
    } else if (req.task.kind === COMPOSE_REPLY) {
      const input = req.task.input as ComposeReplyInput;
      value = {
        message: 'Thanks for reaching out. I can help with that.',
        cited_guideline_ids: input.matched.map((m) => m.guideline_id),
        canned_response_id: '',
      };
    } else {
      throw new Error(`ZeroLatencyProvider: no answer for task ${req.task.kind}`);
    }
    return { value: value as O, usage: { inputTokens: 400, outputTokens: 40 }, provider: this.name, model: this.model, latencyMs: 0 };
  }
}

/** Five guidelines of the bench agent (POSTed with the tag `agent:<id>`). */
export const GUIDELINES = [
  {
    condition: 'The customer asks about refunds, returns, or money back',
    action: 'Explain the 30-day refund policy and offer to check the order',
  },
  { condition: 'The customer mentions an order number', action: 'Look up the order status and tell the customer' },
  { condition: 'The customer is angry or uses strong language', action: 'Apologise and stay calm' },
  { condition: 'The customer asks about shipping times', action: 'Say standard shipping takes 3-5 business days' },
  { condition: 'The customer wants to talk to a human', action: 'Offer to hand the conversation over to a human agent' },
];

export const CUSTOMER_MESSAGE = 'Hi, I need help with my order #12345, can I get my money back?';

/** What the floor sends on each hop: about the size of Tenet's match request for this agent (1.2 KB of JSON). */
export const HOP_REQUEST = {
  session_id: 'x'.repeat(20),
  agent: { id: 'a'.repeat(20), name: 'Support' },
  message: CUSTOMER_MESSAGE,
  history: [],
  guidelines: GUIDELINES.map((g, i) => ({
    id: `guideline-${i}-${'g'.repeat(10)}`,
    ...g,
    priority: 0,
    enabled: true,
    tools: [],
    required_context: [],
  })),
};
export const HOP_REPLY = {
  message: 'Thanks for reaching out. I can help with that.',
  cited_guideline_ids: ['guideline-0', 'guideline-1'],
  usage: { input_tokens: 400, output_tokens: 40 },
};

/** One request/reply hop of the floor (`match` or `compose`). */
export type Hop = (kind: 'match' | 'compose') => Promise<unknown>;

/**
 * The floor of a turn: the 11 single-event appends a Tenet turn makes, on the same kinds of streams and in
 * the same order, and the 2 request/reply hops between them — nothing else. `reply` is called where Tenet
 * appends `ready` (after 10 appends); the 11th append stands for the lease release that follows it.
 */
export async function floorTurn(store: EventStore, hop: Hop, sessionId: string, reply: () => void): Promise<void> {
  const session = `session-${sessionId}`;
  const correlation = `corr_${randomUUID()}`;
  const event = (type: string, data: Record<string, unknown>) => [
    { type, data: { session_id: sessionId, source: 'ai_agent', correlation_id: correlation, data }, metadata: { trace_id: correlation } },
  ];
  const status = (value: string) => store.append(session, event('status', { status: value, data: {} }));
  await store.append(session, event('message', { message: CUSTOMER_MESSAGE, participant: { display_name: 'customer' } })); // 1 customer message
  await store.append(`sessionmeta-${sessionId}`, [{ type: 'SessionActivated', data: { at: Date.now(), activity: 1 } }]); // 2 activity
  await status('acknowledged'); // 3
  await store.append(`turnlease-${sessionId}`, [
    { type: 'TurnClaimed', data: { trigger_offset: 0, owner: 'floor', lease_until: Date.now() + 180_000 } },
  ]); // 4
  await status('processing'); // 5
  await hop('match');
  await store.append('usage-bench-agent', [
    {
      type: 'llm_usage',
      data: { agent_id: 'bench-agent', session_id: sessionId, purpose: 'match_guidelines', input_tokens: 400, output_tokens: 40 },
    },
  ]); // 6
  await status('typing'); // 7
  await hop('compose');
  await store.append('usage-bench-agent', [
    {
      type: 'llm_usage',
      data: { agent_id: 'bench-agent', session_id: sessionId, purpose: 'compose_reply', input_tokens: 400, output_tokens: 40 },
    },
  ]); // 8
  await store.append(
    session,
    event('message', { message: HOP_REPLY.message, participant: { id: 'bench-agent', display_name: 'Support' } }),
  ); // 9
  await store.append(session, event('status', { status: 'ready', data: { matched_guidelines: HOP_REPLY.cited_guideline_ids } })); // 10
  reply();
  await store.append(`turnlease-${sessionId}`, [{ type: 'TurnReleased', data: { trigger_offset: 0, owner: 'floor', outcome: 'ready' } }]); // 11
}

/** The floor's HTTP endpoint: `POST /turn/<session>` runs a floor turn and answers when it reaches `ready`. */
export async function serveFloor(store: EventStore, hop: Hop): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const sessionId = (req.url ?? '').split('/')[2] ?? 'unknown';
      JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      floorTurn(store, hop, sessionId, () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ready' }));
      }).catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1_000 });

/** A small keep-alive JSON client on node:http (lighter than fetch), the same for Tenet and the floor. */
export function http<T>(method: string, url: string, body?: unknown, key?: string): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = {
      ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    };
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status >= 300) reject(new Error(`${method} ${url} → ${status} ${text.slice(0, 300)}`));
        else resolve({ status, body: (text ? JSON.parse(text) : undefined) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

export const median = (values: readonly number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
