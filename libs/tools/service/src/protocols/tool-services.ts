import type { ServiceDescriptionV1, ToolResultPayloadV1, ToolServiceV1 } from '@tenet/contracts';
import { redactKnownSecrets } from '@tenet/observability';
import type { SecretBox } from '@tenet/secrets';
import { ToolCredentialsProvider } from '../credentials/credentials.js';
import { ToolServiceError } from '../errors.js';
import { guardedFetch, type OutboundPolicy } from '../outbound/outbound.js';
import type { McpProtocol, McpProtocolOptions } from './mcp/mcp.protocol.js';
import type { ToolCallOptions, ToolServiceProtocol } from './protocol.js';

type Kind = ToolServiceV1['kind'];

/**
 * The three adapters behind one `ToolServiceProtocol`, chosen by the service's `kind`, all under one outbound policy.
 * Each adapter is loaded with the first service of its kind (ADR 0035): the MCP SDK and the OpenAPI tooling
 * (json-schema-ref-parser, swagger2openapi) are hundreds of modules a process serving no such service never needs.
 */
export class ToolServices implements ToolServiceProtocol {
  private readonly fetch;
  private readonly watchFetch;
  private readonly byKind = new Map<Kind, Promise<ToolServiceProtocol>>();
  private mcp: Promise<McpProtocol> | undefined;
  private readonly credentials: ToolCredentialsProvider;
  private readonly mcpOptions: McpProtocolOptions;

  /** `secrets` opens services' sealed credentials (TENET_SECRETS_KEY); without it a service with credentials fails naming the variable. */
  constructor(
    readonly policy: OutboundPolicy,
    options: McpProtocolOptions & { secrets?: SecretBox } = {},
  ) {
    this.fetch = guardedFetch(policy);
    this.watchFetch = guardedFetch(policy, { streaming: true });
    this.credentials = new ToolCredentialsProvider(options.secrets, this.fetch);
    this.mcpOptions = { ...options, watchFetch: this.watchFetch };
  }

  private protocol(kind: Kind): Promise<ToolServiceProtocol> {
    let protocol = this.byKind.get(kind);
    if (!protocol) {
      protocol = this.load(kind);
      this.byKind.set(kind, protocol);
    }
    return protocol;
  }

  private async load(kind: Kind): Promise<ToolServiceProtocol> {
    switch (kind) {
      case 'openapi':
        return new (await import('./openapi.protocol.js')).OpenApiProtocol(this.fetch, this.credentials);
      case 'mcp':
        this.mcp = import('./mcp/mcp.protocol.js').then(
          ({ McpProtocol }) => new McpProtocol(this.fetch, this.policy, this.credentials, this.mcpOptions),
        );
        return this.mcp;
      case 'sdk':
        return new (await import('./sdk.protocol.js')).SdkPluginProtocol(this.fetch);
      default: {
        const unknown: never = kind;
        throw new Error(`unknown tool service kind ${String(unknown)}`);
      }
    }
  }

  async describe(service: ToolServiceV1, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ServiceDescriptionV1> {
    return (await this.protocol(service.kind)).describe(service, options);
  }

  /** A call; whatever the service echoes of its own credentials (in the result or an error) is masked before it goes anywhere. */
  async call(
    service: ToolServiceV1,
    toolName: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResultPayloadV1> {
    try {
      const result = await (await this.protocol(service.kind)).call(service, toolName, args, options);
      return service.auth ? (redactKnownSecrets(result, this.credentials.knownSecrets(service)) as ToolResultPayloadV1) : result;
    } catch (error) {
      if (!service.auth || !(error instanceof ToolServiceError)) throw error;
      const message = redactKnownSecrets(error.message, this.credentials.knownSecrets(service)) as string;
      throw new ToolServiceError(error.code, message, error.retryable, error.retryAfterMs);
    }
  }

  private closing: Promise<void> | undefined;

  /** Stops stdio servers and closes connections; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.mcp) await (await this.mcp).close();
      await Promise.all([this.fetch.close(), this.watchFetch.close()]);
    })();
    return this.closing;
  }
}
