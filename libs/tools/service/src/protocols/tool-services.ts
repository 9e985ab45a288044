import type { ToolDescriptorV1, ToolResultPayloadV1, ToolServiceV1 } from '@tenet/contracts';
import { guardedFetch, type OutboundPolicy } from '../outbound/outbound.js';
import { McpProtocol } from './mcp.protocol.js';
import { OpenApiProtocol } from './openapi.protocol.js';
import type { ToolCallOptions, ToolServiceProtocol } from './protocol.js';
import { SdkPluginProtocol } from './sdk.protocol.js';

/** The three adapters behind one `ToolServiceProtocol`, chosen by the service's `kind`, all under one outbound policy. */
export class ToolServices implements ToolServiceProtocol {
  private readonly fetch;
  private readonly byKind: Record<ToolServiceV1['kind'], ToolServiceProtocol>;

  constructor(readonly policy: OutboundPolicy) {
    this.fetch = guardedFetch(policy);
    this.byKind = { openapi: new OpenApiProtocol(this.fetch), mcp: new McpProtocol(this.fetch), sdk: new SdkPluginProtocol(this.fetch) };
  }

  describe(service: ToolServiceV1, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolDescriptorV1[]> {
    return this.byKind[service.kind].describe(service, options);
  }

  call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1> {
    return this.byKind[service.kind].call(service, toolName, args, options);
  }

  close(): Promise<void> {
    return this.fetch.close();
  }
}
