import type { ServiceDescriptionV1, ToolResultPayloadV1, ToolServiceV1 } from '@tenet/contracts';
import { guardedFetch, type OutboundPolicy } from '../outbound/outbound.js';
import { McpProtocol, type McpProtocolOptions } from './mcp/mcp.protocol.js';
import { OpenApiProtocol } from './openapi.protocol.js';
import type { ToolCallOptions, ToolServiceProtocol } from './protocol.js';
import { SdkPluginProtocol } from './sdk.protocol.js';

/** The three adapters behind one `ToolServiceProtocol`, chosen by the service's `kind`, all under one outbound policy. */
export class ToolServices implements ToolServiceProtocol {
  private readonly fetch;
  private readonly byKind: Record<ToolServiceV1['kind'], ToolServiceProtocol>;
  private readonly mcp: McpProtocol;

  constructor(
    readonly policy: OutboundPolicy,
    options: McpProtocolOptions = {},
  ) {
    this.fetch = guardedFetch(policy);
    this.mcp = new McpProtocol(this.fetch, policy, options);
    this.byKind = { openapi: new OpenApiProtocol(this.fetch), mcp: this.mcp, sdk: new SdkPluginProtocol(this.fetch) };
  }

  describe(service: ToolServiceV1, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ServiceDescriptionV1> {
    return this.byKind[service.kind].describe(service, options);
  }

  call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1> {
    return this.byKind[service.kind].call(service, toolName, args, options);
  }

  private closing: Promise<void> | undefined;

  /** Stops stdio servers and closes connections; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.mcp.close();
      await this.fetch.close();
    })();
    return this.closing;
  }
}
