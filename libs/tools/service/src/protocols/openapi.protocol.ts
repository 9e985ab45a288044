import { dereference } from '@apidevtools/json-schema-ref-parser';
import { TOOL_ERROR_CODES, toolId, type ServiceDescriptionV1, type ToolResultPayloadV1, type ToolServiceV1 } from '@tenet/contracts';
import {
  InvalidOpenApiDocumentError,
  operationsFromOpenApi,
  placeArguments,
  type OpenApiOperation,
  type SkippedOperation,
} from '@tenet/tools-domain';
import { LRUCache } from 'lru-cache';
import swagger2openapi from 'swagger2openapi';
import { parse as parseYaml } from 'yaml';
import type { ToolCredentialsProvider } from '../credentials/credentials.js';
import { ToolServiceError } from '../errors.js';
import type { GuardedFetch } from '../outbound/outbound.js';
import {
  attemptSignal,
  DEFAULT_DESCRIBE_TIMEOUT_MS,
  httpStatusError,
  readBody,
  toToolServiceError,
  type ToolCallOptions,
  type ToolServiceProtocol,
} from './protocol.js';

interface LoadedDocument {
  operations: OpenApiOperation[];
  skipped: SkippedOperation[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The document as OpenAPI 3 with its `$ref`s resolved: Swagger 2.0 converted by `swagger2openapi`, references
 * inside the document dereferenced by `@apidevtools/json-schema-ref-parser` (never fetched from elsewhere: no
 * file or URL resolution; a recursive schema is left as a `$ref` and its operation skipped by the mapping).
 */
export async function normalizedOpenApi(document: unknown): Promise<unknown> {
  let openapi = document;
  if (isRecord(document) && typeof document['swagger'] === 'string') {
    if (!document['swagger'].startsWith('2.'))
      throw new InvalidOpenApiDocumentError(`"swagger": "${document['swagger']}" is not a version Tenet reads (2.0, or OpenAPI 3.x)`);
    try {
      openapi = (await swagger2openapi.convertObj(
        structuredClone(document) as unknown as Parameters<typeof swagger2openapi.convertObj>[0],
        { patch: true, warnOnly: true, resolve: false, direct: true },
      )) as unknown;
    } catch (error) {
      throw new InvalidOpenApiDocumentError(
        `the Swagger 2.0 document could not be converted to OpenAPI 3: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  if (!isRecord(openapi)) return openapi;
  try {
    return await dereference(structuredClone(openapi), { resolve: { external: false }, dereference: { circular: 'ignore' } });
  } catch (error) {
    throw new InvalidOpenApiDocumentError(`its $refs cannot be resolved: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** How an operation's body travels: JSON, a urlencoded form, or multipart form data (objects and arrays as JSON text). */
function encodeBody(operation: OpenApiOperation, body: unknown): { body: string | FormData | URLSearchParams; contentType?: string } {
  const encoding = operation.body?.encoding ?? 'json';
  if (encoding === 'json')
    return {
      body: JSON.stringify(body),
      contentType: operation.body?.contentType.includes('json') ? operation.body.contentType : 'application/json',
    };
  const fields = Object.entries(isRecord(body) ? body : {}).filter(([, value]) => value !== undefined && value !== null);
  const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  if (encoding === 'form') {
    const form = new URLSearchParams();
    for (const [name, value] of fields) for (const item of Array.isArray(value) ? value : [value]) form.append(name, text(item));
    return { body: form, contentType: 'application/x-www-form-urlencoded' };
  }
  const multipart = new FormData();
  for (const [name, value] of fields) for (const item of Array.isArray(value) ? value : [value]) multipart.append(name, text(item));
  // fetch sets multipart/form-data with its boundary itself.
  return { body: multipart };
}

/**
 * OpenAPI tool services: the document at `source` (OpenAPI 3.x or Swagger 2.0, JSON or YAML) lists the operations;
 * those Tenet can call become tools, the others are reported as skipped with the reason. A call sends the
 * operation's request to `url` with the arguments in the path, query, headers, cookies and the body (JSON,
 * urlencoded or multipart).
 */
export class OpenApiProtocol implements ToolServiceProtocol {
  /** Parsed documents by source, so a call does not fetch the document every time. */
  private readonly documents = new LRUCache<string, LoadedDocument>({ max: 256, ttl: 60_000 });

  constructor(
    private readonly fetch: GuardedFetch,
    private readonly credentials: ToolCredentialsProvider,
  ) {}

  async describe(service: ToolServiceV1, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ServiceDescriptionV1> {
    const { operations, skipped } = await this.load(service, options.signal, options.timeoutMs ?? DEFAULT_DESCRIBE_TIMEOUT_MS, true);
    return { tools: operations.map(({ name, description, parameters }) => ({ name, description, parameters })), skipped };
  }

  async call(
    service: ToolServiceV1,
    toolName: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResultPayloadV1> {
    const { operations } = await this.load(service, options.signal, options.timeoutMs, false);
    const operation = operations.find((candidate) => candidate.name === toolName);
    if (!operation) throw new ToolServiceError(TOOL_ERROR_CODES.UNKNOWN_TOOL, `${service.name} has no operation "${toolName}"`);
    const placed = placeArguments(operation, args);
    const what = toolId(service.name, toolName);
    const attempt = attemptSignal(options.signal, options.timeoutMs);
    const encoded = placed.body !== undefined ? encodeBody(operation, placed.body) : undefined;
    try {
      // A 401 with an OAuth2 token: the token is fetched again and the request sent once more.
      for (let tries = 0; ; tries++) {
        const credentials = await this.credentials.apply(service, attempt.signal);
        const url = new URL(service.url.replace(/\/+$/, '') + placed.path);
        for (const [name, value] of [...placed.query, ...credentials.query]) url.searchParams.append(name, value);
        const cookie = [...placed.cookies, ...credentials.cookies]
          .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
          .join('; ');
        const response = await this.fetch(url, {
          method: operation.method,
          headers: {
            ...placed.headers,
            ...credentials.headers,
            accept: 'application/json, */*;q=0.5',
            'idempotency-key': options.idempotencyKey,
            ...(cookie ? { cookie } : {}),
            ...(encoded?.contentType ? { 'content-type': encoded.contentType } : {}),
          },
          ...(encoded ? { body: encoded.body } : {}),
          signal: attempt.signal,
        });
        if (response.status === 401 && service.auth?.scheme === 'oauth2_client_credentials' && tries === 0) {
          await response.body?.cancel().catch(() => undefined);
          this.credentials.invalidate(service);
          continue;
        }
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          throw httpStatusError(what, response);
        }
        return { data: await readBody(response), metadata: {}, control: {} };
      }
    } catch (error) {
      throw toToolServiceError(error, what, { ...attempt, timeoutMs: options.timeoutMs });
    }
  }

  private async load(service: ToolServiceV1, signal: AbortSignal | undefined, timeoutMs: number, fresh: boolean): Promise<LoadedDocument> {
    const source = service.source ?? service.url;
    const cached = fresh ? undefined : this.documents.get(source);
    if (cached) return cached;
    const attempt = attemptSignal(signal, timeoutMs);
    let text: string;
    try {
      const response = await this.fetch(source, {
        headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
        signal: attempt.signal,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolServiceError(
          TOOL_ERROR_CODES.SERVICE_UNREACHABLE,
          `the OpenAPI document of ${service.name} could not be fetched: HTTP ${response.status}`,
          response.status >= 500,
        );
      }
      text = await response.text();
    } catch (error) {
      throw toToolServiceError(error, `the OpenAPI document of ${service.name}`, { ...attempt, timeoutMs });
    }
    let document: unknown;
    try {
      document = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 });
    } catch (error) {
      throw new ToolServiceError(
        TOOL_ERROR_CODES.INVALID_DOCUMENT,
        `the OpenAPI document of ${service.name} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`,
      );
    }
    try {
      const loaded = operationsFromOpenApi(await normalizedOpenApi(document));
      this.documents.set(source, loaded);
      return loaded;
    } catch (error) {
      if (error instanceof InvalidOpenApiDocumentError)
        throw new ToolServiceError(
          TOOL_ERROR_CODES.INVALID_DOCUMENT,
          `the OpenAPI document of ${service.name} is invalid: ${error.message}`,
        );
      throw error;
    }
  }
}
