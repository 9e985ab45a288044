import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  TOOL_ERROR_CODES,
  toolId,
  type ServiceDescriptionV1,
  type ToolDescriptorV1,
  type ToolResultPayloadV1,
  type ToolServiceV1,
} from '@tenet/contracts';
import { isRetryableStatus } from '@tenet/tools-domain';
import { LRUCache } from 'lru-cache';
import type { ToolCredentialsProvider } from '../../credentials/credentials.js';
import { ToolServiceError } from '../../errors.js';
import { assertStdioCommandAllowed, causeToolError, type GuardedFetch, type OutboundPolicy } from '../../outbound/outbound.js';
import {
  attemptSignal,
  DEFAULT_DESCRIBE_TIMEOUT_MS,
  toToolServiceError,
  type ToolCallOptions,
  type ToolServiceProtocol,
} from '../protocol.js';
import { StdioServers } from './stdio-servers.js';

const CLIENT_INFO = { name: 'tenet-tool-executor', version: '1.0.0' };

type HttpTransportKind = 'Streamable HTTP' | 'HTTP+SSE';
type Attempt = { signal: AbortSignal; timedOut: () => boolean };

/** MCP's tool descriptions as Tenet's (the input schema kept whole, `$schema` included: the validator reads its dialect). */
export const descriptorsOf = (tools: readonly Tool[]): ToolDescriptorV1[] =>
  tools.map((tool) => {
    const schema = tool.inputSchema as { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
    return {
      name: tool.name,
      description: tool.description ?? tool.title ?? '',
      parameters: { ...schema, type: 'object', properties: schema.properties ?? {} },
    };
  });

export interface McpProtocolOptions {
  /**
   * A standing connection said its tool list changed (`notifications/tools/list_changed`): the service's new tools.
   * Given this, the protocol keeps one watching session open per HTTP service it has described or called.
   */
  onToolsChanged?: (service: ToolServiceV1, tools: ToolDescriptorV1[]) => void;
  onStdioExit?: (service: ToolServiceV1, detail: string) => void;
  /** The fetch of watching sessions: long-lived event streams, so no idle-body timeout (default: the call fetch). */
  watchFetch?: GuardedFetch;
}

/** A session kept open to hear an HTTP server's list-changed notifications; `fingerprint` is the registration it watches. */
interface Watcher {
  fingerprint: string;
  client?: Client;
  closed: boolean;
}

const WATCH_CONNECT_TIMEOUT_MS = 15_000;

/**
 * MCP tool services with the official SDK client, `tools/list` and `tools/call`, over three transports:
 * - Streamable HTTP, falling back to the legacy HTTP+SSE transport when the endpoint refuses it with a 4xx (the
 *   SDK's documented backwards-compatibility rule); which one an endpoint speaks is remembered. Every HTTP
 *   request of a call carries the call's `Idempotency-Key` and goes through the guarded fetch; a session is opened
 *   per call and terminated after it.
 * - stdio: a child process the executor runs (`TENET_TOOL_STDIO_COMMANDS` must allow its command), kept running
 *   across calls and restarted when it dies; its tool-list-changed notifications are passed on.
 */
export class McpProtocol implements ToolServiceProtocol {
  private readonly transports = new LRUCache<string, HttpTransportKind>({ max: 1024, ttl: 60 * 60_000 });
  private readonly stdio: StdioServers;
  /** One watching session per HTTP service name (bounded; the least recently used is closed). */
  private readonly watchers = new LRUCache<string, Watcher>({ max: 512, dispose: (watcher) => void closeWatcher(watcher) });
  private readonly onToolsChanged: McpProtocolOptions['onToolsChanged'];
  private readonly watchFetch: GuardedFetch;

  constructor(
    private readonly fetch: GuardedFetch,
    private readonly policy: OutboundPolicy,
    private readonly credentials: ToolCredentialsProvider,
    options: McpProtocolOptions = {},
  ) {
    const onToolsChanged = options.onToolsChanged;
    this.onToolsChanged = onToolsChanged;
    this.watchFetch = options.watchFetch ?? fetch;
    this.stdio = new StdioServers({
      clientInfo: CLIENT_INFO,
      ...(onToolsChanged
        ? { onToolsChanged: (service: ToolServiceV1, tools: Tool[]) => onToolsChanged(service, descriptorsOf(tools)) }
        : {}),
      ...(options.onStdioExit ? { onExit: options.onStdioExit } : {}),
    });
  }

  async describe(service: ToolServiceV1, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ServiceDescriptionV1> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS;
    const attempt = attemptSignal(options.signal, timeoutMs);
    const description = await this.session(service, undefined, attempt, timeoutMs, service.name, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { signal: attempt.signal, timeout: timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      return { tools: descriptorsOf(tools) };
    });
    this.watch(service, description.tools);
    return description;
  }

  async call(
    service: ToolServiceV1,
    toolName: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResultPayloadV1> {
    const what = toolId(service.name, toolName);
    const attempt = attemptSignal(options.signal, options.timeoutMs);
    const result = await this.session(service, options.idempotencyKey, attempt, options.timeoutMs, what, (client) =>
      client.callTool({ name: toolName, arguments: args }, undefined, { signal: attempt.signal, timeout: options.timeoutMs }),
    );
    const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
    const text = content
      .filter((item) => item.type === 'text')
      .map((item) => item.text ?? '')
      .join('\n');
    this.watch(service);
    if (result.isError)
      throw new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} failed: ${text.slice(0, 500) || 'the tool reported an error'}`);
    const data = result.structuredContent ?? parseText(text, content);
    const meta = result._meta;
    return { data, metadata: meta && typeof meta === 'object' ? { ...meta } : {}, control: {} };
  }

  async close(): Promise<void> {
    this.watchers.clear();
    await this.stdio.close();
  }

  /**
   * Keeps a session open to an HTTP server the executor has reached, so its `notifications/tools/list_changed`
   * (on the Streamable HTTP GET stream or the SSE stream) are heard: the SDK client lists the tools again and
   * `onToolsChanged` passes them on. Re-registering the service (another URL or credentials) replaces the watcher;
   * a watcher whose connection closes is dropped and opened again on the service's next describe or call.
   */
  private watch(service: ToolServiceV1, seen?: ToolDescriptorV1[]): void {
    const onToolsChanged = this.onToolsChanged;
    if (!onToolsChanged || service.stdio) return;
    const fingerprint = `${service.url}\u0000${service.auth?.sealed ?? ''}`;
    if (this.watchers.get(service.name)?.fingerprint === fingerprint) return;
    const watcher: Watcher = { fingerprint, closed: false };
    this.watchers.set(service.name, watcher);
    const forget = (): void => {
      if (this.watchers.peek(service.name) === watcher) this.watchers.delete(service.name);
    };
    void (async () => {
      const signal = AbortSignal.timeout(WATCH_CONNECT_TIMEOUT_MS);
      const credentials = await this.credentials.apply(service, signal);
      const url = new URL(service.url);
      for (const [name, value] of credentials.query) url.searchParams.append(name, value);
      const options = {
        fetch: this.watchFetch,
        redirectPolicy: 'same-origin' as const,
        ...(Object.keys(credentials.headers).length > 0 ? { requestInit: { headers: credentials.headers } } : {}),
      };
      const transport =
        this.transports.get(service.url) === 'HTTP+SSE'
          ? new SSEClientTransport(url, options)
          : new StreamableHTTPClientTransport(url, options);
      const client = new Client(CLIENT_INFO, {
        listChanged: {
          tools: {
            onChanged: (error, tools) => void (!error && tools && !watcher.closed && onToolsChanged(service, descriptorsOf(tools))),
          },
        },
      });
      client.onclose = forget;
      watcher.client = client;
      await client.connect(transport, { signal, timeout: WATCH_CONNECT_TIMEOUT_MS });
      if (watcher.closed) return closeWatcher(watcher);
      // A change between the describe or call that opened the watcher and its session would go unheard: compare.
      const now = descriptorsOf((await client.listTools(undefined, { signal, timeout: WATCH_CONNECT_TIMEOUT_MS })).tools);
      if (!watcher.closed && (seen === undefined || JSON.stringify(now) !== JSON.stringify(seen))) onToolsChanged(service, now);
    })().catch(async () => {
      forget();
      await closeWatcher(watcher);
    });
  }

  private session<T>(
    service: ToolServiceV1,
    idempotencyKey: string | undefined,
    attempt: Attempt,
    timeoutMs: number,
    what: string,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    return service.stdio
      ? this.overStdio({ ...service, stdio: service.stdio }, attempt, timeoutMs, what, work)
      : this.overHttp(service, idempotencyKey, attempt, timeoutMs, what, work);
  }

  private async overStdio<T>(
    service: ToolServiceV1 & { stdio: NonNullable<ToolServiceV1['stdio']> },
    attempt: Attempt,
    timeoutMs: number,
    what: string,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    assertStdioCommandAllowed(this.policy, service.stdio.command);
    // The child's environment was sealed by the gateway (it often holds the server's API keys).
    const sealed = this.credentials.credentialsOf(service);
    const env = sealed?.scheme === 'env' ? { ...(service.stdio.env ?? {}), ...sealed.env } : service.stdio.env;
    const client = await this.stdio
      .server({ ...service, stdio: { ...service.stdio, ...(env ? { env } : {}) } })
      .connect(timeoutMs, attempt.signal);
    try {
      return await work(client);
    } catch (error) {
      throw mcpError(error, what, { ...attempt, timeoutMs });
    }
  }

  private async overHttp<T>(
    service: ToolServiceV1,
    idempotencyKey: string | undefined,
    attempt: Attempt,
    timeoutMs: number,
    what: string,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    // The server's credentials (headers, bearer) on every request of the session, with the call's Idempotency-Key.
    const credentials = await this.credentials.apply(service, attempt.signal);
    const url = new URL(service.url);
    for (const [name, value] of credentials.query) url.searchParams.append(name, value);
    const headers = { ...credentials.headers, ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) };
    const requestInit = Object.keys(headers).length > 0 ? { headers } : undefined;
    const known = this.transports.get(service.url);
    const kinds: HttpTransportKind[] = known ? [known] : ['Streamable HTTP', 'HTTP+SSE'];
    const refusals: string[] = [];
    for (const [index, kind] of kinds.entries()) {
      const options = { fetch: this.fetch, redirectPolicy: 'same-origin' as const, ...(requestInit ? { requestInit } : {}) };
      const transport = kind === 'Streamable HTTP' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
      const client = new Client(CLIENT_INFO);
      let connected = false;
      try {
        await client.connect(transport, { signal: attempt.signal, timeout: timeoutMs });
        connected = true;
        this.transports.set(service.url, kind);
        return await work(client);
      } catch (error) {
        const status = refusedStatus(error);
        if (!connected && status !== undefined && index < kinds.length - 1) {
          refusals.push(`${kind}: HTTP ${status}`);
          continue;
        }
        const failure = mcpError(error, what, { ...attempt, timeoutMs });
        if (connected) throw failure;
        // Which transports were tried, and how each failed.
        throw new ToolServiceError(
          failure.code,
          `${failure.message} (${[...refusals, `${kind}: ${status !== undefined ? `HTTP ${status}` : failure.code}`].join('; ')})`,
          failure.retryable,
          failure.retryAfterMs,
        );
      } finally {
        if (connected && transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
      }
    }
    throw new ToolServiceError(TOOL_ERROR_CODES.SERVICE_UNREACHABLE, `${what} could not be reached`);
  }
}

async function closeWatcher(watcher: Watcher): Promise<void> {
  watcher.closed = true;
  const client = watcher.client;
  watcher.client = undefined;
  if (!client) return;
  client.onclose = undefined;
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}

/** The HTTP status with which an endpoint refused a transport's opening request (404/405/400 make the client try the other). */
function refusedStatus(error: unknown): number | undefined {
  if (
    (error instanceof StreamableHTTPError || error instanceof SseError) &&
    typeof error.code === 'number' &&
    error.code >= 400 &&
    error.code < 500
  )
    return error.code;
  return undefined;
}

function parseText(text: string, content: unknown[]): unknown {
  if (content.length === 0) return null;
  if (text === '') return content;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function mcpError(error: unknown, what: string, attempt: { timedOut: () => boolean; timeoutMs: number }): ToolServiceError {
  const known = causeToolError(error);
  if (known) return known;
  if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout)) {
    return new ToolServiceError(TOOL_ERROR_CODES.TIMEOUT, `${what} did not answer within ${Math.round(attempt.timeoutMs)} ms`, true);
  }
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === 'number' && error.code >= 400) {
    return new ToolServiceError(TOOL_ERROR_CODES.HTTP_ERROR, `${what} answered HTTP ${error.code}`, isRetryableStatus(error.code));
  }
  if (error instanceof McpError) {
    if (error.code === Number(ErrorCode.InvalidParams) || error.code === Number(ErrorCode.MethodNotFound))
      return new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} refused the call: ${error.message.slice(0, 300)}`);
    if (error.code !== Number(ErrorCode.ConnectionClosed))
      return new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} failed: ${error.message.slice(0, 300)}`);
  }
  return toToolServiceError(error, what, attempt);
}
