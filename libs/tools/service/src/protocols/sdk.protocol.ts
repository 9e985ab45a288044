import { TOOL_ERROR_CODES, toolId, type ServiceDescriptionV1, type ToolResultPayloadV1, type ToolServiceV1 } from '@tenet/contracts';
import { descriptorsFromPluginTools, InvalidPluginResponseError, pluginCallOutcome } from '@tenet/tools-domain';
import { ToolServiceError } from '../errors.js';
import type { GuardedFetch } from '../outbound/outbound.js';
import {
  attemptSignal,
  DEFAULT_DESCRIBE_TIMEOUT_MS,
  httpStatusError,
  joinUrl,
  readBody,
  toToolServiceError,
  type ToolCallOptions,
  type ToolServiceProtocol,
} from './protocol.js';

/**
 * Parlant's plugin protocol (`sdk` services, e.g. a Parlant `PluginServer`): `GET /tools`, and
 * `POST /tools/{name}/calls` with `{agent_id, session_id, customer_id, arguments}` answering a stream of JSON
 * chunks that ends with `{result}` or `{error}`.
 */
export class SdkPluginProtocol implements ToolServiceProtocol {
  constructor(private readonly fetch: GuardedFetch) {}

  async describe(service: ToolServiceV1, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ServiceDescriptionV1> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS;
    const attempt = attemptSignal(options.signal, timeoutMs);
    let body: unknown;
    try {
      const response = await this.fetch(joinUrl(service.url, 'tools'), { headers: { accept: 'application/json' }, signal: attempt.signal });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolServiceError(
          TOOL_ERROR_CODES.SERVICE_UNREACHABLE,
          `${service.name} answered GET /tools with HTTP ${response.status}`,
          response.status >= 500,
        );
      }
      body = await readBody(response);
    } catch (error) {
      throw toToolServiceError(error, service.name, { ...attempt, timeoutMs });
    }
    try {
      return { tools: descriptorsFromPluginTools(body) };
    } catch (error) {
      if (error instanceof InvalidPluginResponseError)
        throw new ToolServiceError(TOOL_ERROR_CODES.INVALID_DOCUMENT, `${service.name}: ${error.message}`);
      throw error;
    }
  }

  async call(
    service: ToolServiceV1,
    toolName: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResultPayloadV1> {
    const what = toolId(service.name, toolName);
    const attempt = attemptSignal(options.signal, options.timeoutMs);
    let text: string;
    try {
      const response = await this.fetch(joinUrl(service.url, `tools/${encodeURIComponent(toolName)}/calls`), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': options.idempotencyKey },
        body: JSON.stringify({ ...options.context, arguments: args }),
        signal: attempt.signal,
      });
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolServiceError(TOOL_ERROR_CODES.UNKNOWN_TOOL, `${service.name} has no tool "${toolName}"`);
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw httpStatusError(what, response);
      }
      text = await response.text();
    } catch (error) {
      throw toToolServiceError(error, what, { ...attempt, timeoutMs: options.timeoutMs });
    }
    let outcome;
    try {
      outcome = pluginCallOutcome(text);
    } catch (error) {
      if (error instanceof InvalidPluginResponseError || error instanceof SyntaxError)
        throw new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} answered an unreadable result: ${error.message}`);
      throw error;
    }
    if (outcome.kind === 'error')
      throw new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${what} failed: ${outcome.message.slice(0, 500)}`);
    return { data: outcome.data, metadata: outcome.metadata, control: outcome.control };
  }
}
