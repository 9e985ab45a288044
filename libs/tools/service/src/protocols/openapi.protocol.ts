import { TOOL_ERROR_CODES, toolId, type ToolDescriptorV1, type ToolResultPayloadV1, type ToolServiceV1 } from '@tenet/contracts';
import { InvalidOpenApiDocumentError, operationsFromOpenApi, placeArguments, type OpenApiOperation } from '@tenet/tools-domain';
import { LRUCache } from 'lru-cache';
import { parse as parseYaml } from 'yaml';
import { ToolServiceError } from '../errors.js';
import type { GuardedFetch } from '../outbound/outbound.js';
import { attemptSignal, DEFAULT_DESCRIBE_TIMEOUT_MS, httpStatusError, readBody, toToolServiceError, type ToolCallOptions, type ToolServiceProtocol } from './protocol.js';

/**
 * OpenAPI tool services: the document at `source` (JSON or YAML) lists the operations; a call sends the
 * operation's request to `url` with the arguments in the path, query, headers and JSON body.
 */
export class OpenApiProtocol implements ToolServiceProtocol {
  /** Parsed documents by source, so a call does not fetch the document every time. */
  private readonly documents = new LRUCache<string, OpenApiOperation[]>({ max: 256, ttl: 60_000 });

  constructor(private readonly fetch: GuardedFetch) {}

  async describe(service: ToolServiceV1, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ToolDescriptorV1[]> {
    const operations = await this.load(service, options.signal, options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS, true);
    return operations.map(({ name, description, parameters }) => ({ name, description, parameters }));
  }

  async call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1> {
    const operations = await this.load(service, options.signal, options.timeoutMs, false);
    const operation = operations.find((candidate) => candidate.name === toolName);
    if (!operation) throw new ToolServiceError(TOOL_ERROR_CODES.UNKNOWN_TOOL, `${service.name} has no operation "${toolName}"`);
    const placed = placeArguments(operation, args);
    const url = new URL(service.url.replace(/\/+$/, '') + placed.path);
    for (const [name, value] of placed.query) url.searchParams.append(name, value);
    const what = toolId(service.name, toolName);
    const attempt = attemptSignal(options.signal, options.timeoutMs);
    try {
      const response = await this.fetch(url, {
        method: operation.method,
        headers: { ...placed.headers, accept: 'application/json', 'idempotency-key': options.idempotencyKey, ...(placed.body ? { 'content-type': 'application/json' } : {}) },
        ...(placed.body ? { body: JSON.stringify(placed.body) } : {}),
        signal: attempt.signal,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw httpStatusError(what, response);
      }
      return { data: await readBody(response), metadata: {}, control: {} };
    } catch (error) {
      throw toToolServiceError(error, what, { ...attempt, timeoutMs: options.timeoutMs });
    }
  }

  private async load(service: ToolServiceV1, signal: AbortSignal | undefined, timeoutMs: number, fresh: boolean): Promise<OpenApiOperation[]> {
    const source = service.source ?? service.url;
    const cached = fresh ? undefined : this.documents.get(source);
    if (cached) return cached;
    const attempt = attemptSignal(signal, timeoutMs);
    let text: string;
    try {
      const response = await this.fetch(source, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' }, signal: attempt.signal });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolServiceError(TOOL_ERROR_CODES.SERVICE_UNREACHABLE, `the OpenAPI document of ${service.name} could not be fetched: HTTP ${response.status}`, response.status >= 500);
      }
      text = await response.text();
    } catch (error) {
      throw toToolServiceError(error, `the OpenAPI document of ${service.name}`, { ...attempt, timeoutMs });
    }
    let document: unknown;
    try {
      document = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
      throw new ToolServiceError(TOOL_ERROR_CODES.INVALID_DOCUMENT, `the OpenAPI document of ${service.name} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    try {
      const operations = operationsFromOpenApi(document);
      this.documents.set(source, operations);
      return operations;
    } catch (error) {
      if (error instanceof InvalidOpenApiDocumentError) throw new ToolServiceError(TOOL_ERROR_CODES.INVALID_DOCUMENT, `the OpenAPI document of ${service.name} is invalid: ${error.message}`);
      throw error;
    }
  }
}
