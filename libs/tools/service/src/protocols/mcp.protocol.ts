import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_ERROR_CODES, toolId, type ToolDescriptorV1, type ToolResultPayloadV1, type ToolServiceV1 } from '@tenet/contracts';
import { isRetryableStatus } from '@tenet/tools-domain';
import { ToolServiceError } from '../errors.js';
import { causeToolError, type GuardedFetch } from '../outbound/outbound.js';
import { attemptSignal, DEFAULT_DESCRIBE_TIMEOUT_MS, toToolServiceError, type ToolCallOptions, type ToolServiceProtocol } from './protocol.js';

const CLIENT_INFO = { name: 'tenet-tool-executor', version: '1.0.0' };

/**
 * MCP tool services over Streamable HTTP, with the official SDK client: `tools/list` and `tools/call`. Every
 * HTTP request of a call carries the call's `Idempotency-Key` header, and goes through the guarded fetch.
 */
export class McpProtocol implements ToolServiceProtocol {
  constructor(private readonly fetch: GuardedFetch) {}

  async describe(service: ToolServiceV1, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ToolDescriptorV1[]> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS;
    const attempt = attemptSignal(options.signal, timeoutMs);
    return this.session(service, undefined, attempt, timeoutMs, service.name, async (client) => {
      const tools: ToolDescriptorV1[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { signal: attempt.signal, timeout: timeoutMs });
        for (const tool of page.tools) {
          const schema = tool.inputSchema as { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
          tools.push({
            name: tool.name,
            description: tool.description ?? tool.title ?? '',
            parameters: { ...schema, type: 'object', properties: schema.properties ?? {} },
          });
        }
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      return tools;
    });
  }

  async call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1> {
    const what = toolId(service.name, toolName);
    const attempt = attemptSignal(options.signal, options.timeoutMs);
    const result = await this.session(service, options.idempotencyKey, attempt, options.timeoutMs, what, (client) =>
      client.callTool({ name: toolName, arguments: args }, undefined, { signal: attempt.signal, timeout: options.timeoutMs }),
    );
    const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
    const text = content.filter((item) => item.type === 'text').map((item) => item.text ?? '').join('\n');
    if (result.isError) throw new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} failed: ${text.slice(0, 500) || 'the tool reported an error'}`);
    const data = result.structuredContent ?? parseText(text, content);
    const meta = result._meta;
    return { data, metadata: meta && typeof meta === 'object' ? { ...meta } : {}, control: {} };
  }

  private async session<T>(service: ToolServiceV1, idempotencyKey: string | undefined, attempt: { signal: AbortSignal; timedOut: () => boolean }, timeoutMs: number, what: string, work: (client: Client) => Promise<T>): Promise<T> {
    const transport = new StreamableHTTPClientTransport(new URL(service.url), {
      fetch: this.fetch,
      redirectPolicy: 'same-origin',
      ...(idempotencyKey ? { requestInit: { headers: { 'Idempotency-Key': idempotencyKey } } } : {}),
    });
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(transport, { signal: attempt.signal, timeout: timeoutMs });
      return await work(client);
    } catch (error) {
      throw mcpError(error, what, { ...attempt, timeoutMs });
    } finally {
      await client.close().catch(() => undefined);
    }
  }
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
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code >= 400) {
    return new ToolServiceError(TOOL_ERROR_CODES.HTTP_ERROR, `${what} answered HTTP ${error.code}`, isRetryableStatus(error.code));
  }
  if (error instanceof McpError) {
    if (error.code === Number(ErrorCode.InvalidParams) || error.code === Number(ErrorCode.MethodNotFound)) return new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} refused the call: ${error.message.slice(0, 300)}`);
    if (error.code !== Number(ErrorCode.ConnectionClosed)) return new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} failed: ${error.message.slice(0, 300)}`);
  }
  return toToolServiceError(error, what, attempt);
}
