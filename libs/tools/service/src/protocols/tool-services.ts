import type { ServiceDescriptionV1, ToolResultPayloadV1, ToolServiceV1 } from '@tenet/contracts';
import { redactKnownSecrets } from '@tenet/observability';
import type { SecretBox } from '@tenet/secrets';
import { ToolCredentialsProvider } from '../credentials/credentials.js';
import { ToolServiceError } from '../errors.js';
import { guardedFetch, type OutboundPolicy } from '../outbound/outbound.js';
import { McpProtocol, type McpProtocolOptions } from './mcp/mcp.protocol.js';
import { OpenApiProtocol } from './openapi.protocol.js';
import type { ToolCallOptions, ToolServiceProtocol } from './protocol.js';
import { SdkPluginProtocol } from './sdk.protocol.js';

/** The three adapters behind one `ToolServiceProtocol`, chosen by the service's `kind`, all under one outbound policy. */
export class ToolServices implements ToolServiceProtocol {
  private readonly fetch;
  private readonly watchFetch;
  private readonly byKind: Record<ToolServiceV1['kind'], ToolServiceProtocol>;
  private readonly mcp: McpProtocol;
  private readonly credentials: ToolCredentialsProvider;

  /** `secrets` opens services' sealed credentials (TENET_SECRETS_KEY); without it a service with credentials fails naming the variable. */
  constructor(
    readonly policy: OutboundPolicy,
    options: McpProtocolOptions & { secrets?: SecretBox } = {},
  ) {
    this.fetch = guardedFetch(policy);
    this.watchFetch = guardedFetch(policy, { streaming: true });
    this.credentials = new ToolCredentialsProvider(options.secrets, this.fetch);
    this.mcp = new McpProtocol(this.fetch, policy, this.credentials, { ...options, watchFetch: this.watchFetch });
    this.byKind = { openapi: new OpenApiProtocol(this.fetch, this.credentials), mcp: this.mcp, sdk: new SdkPluginProtocol(this.fetch) };
  }

  describe(service: ToolServiceV1, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ServiceDescriptionV1> {
    return this.byKind[service.kind].describe(service, options);
  }

  /** A call; whatever the service echoes of its own credentials (in the result or an error) is masked before it goes anywhere. */
  async call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1> {
    try {
      const result = await this.byKind[service.kind].call(service, toolName, args, options);
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
      await this.mcp.close();
      await Promise.all([this.fetch.close(), this.watchFetch.close()]);
    })();
    return this.closing;
  }
}
