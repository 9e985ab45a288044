import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { ResourceIdTakenError, ResourceStreams, type Evolve } from '@tenet/edge';
import type { ToolServiceV1 } from '@tenet/contracts';
import type { StoredService, StoredTool } from './service.dto.js';

/** `service:tool`, how guidelines, the matcher and `tool` events name a service's tool (Parlant's ToolId). */
export const serviceToolId = (serviceName: string, toolName: string): string => `${serviceName}:${toolName}`;

/** `service:tool` → its parts; `undefined` for a bare agent-tool name. */
export function parseServiceToolId(id: string): { service_name: string; tool_name: string } | undefined {
  const at = id.indexOf(':');
  return at > 0 && at < id.length - 1 ? { service_name: id.slice(0, at), tool_name: id.slice(at + 1) } : undefined;
}

/** Each registration carries the whole service (a re-registration replaces it, fields it no longer has included). */
const evolve: Evolve<StoredService> = (current, event) => {
  switch (event.type) {
    case 'ServiceRegistered':
      return event.data as StoredService;
    case 'ServiceDeleted':
      return undefined;
    default:
      return current;
  }
};

/** What the executor needs to reach a stored service (contract `ToolServiceV1`). */
export const serviceRef = (service: StoredService): ToolServiceV1 => ({
  name: service.name,
  kind: service.kind,
  url: service.url,
  ...(service.source !== undefined ? { source: service.source } : {}),
  ...(service.stdio !== undefined ? { stdio: service.stdio } : {}),
  ...(service.auth !== undefined ? { auth: { scheme: service.auth.scheme, sealed: service.auth.sealed, owner: service.auth.owner } } : {}),
});

/**
 * Registered tool services, event-sourced like the other catalogs: one `service-<name>` stream each. A PUT of an
 * existing name replaces it (Parlant's create-or-update), keeping each still-offered tool's creation time.
 */
@Injectable()
export class ServicesRepository {
  private readonly streams: ResourceStreams<StoredService>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, 'service-', 'Service', evolve);
  }

  async put(
    service: Omit<StoredService, 'creation_utc' | 'tools'> & { tools: Omit<StoredTool, 'creation_utc'>[] },
    now: Date,
  ): Promise<StoredService> {
    const registered = (previous: StoredService | undefined): StoredService => ({
      ...service,
      tools: service.tools.map((tool) => ({
        ...tool,
        creation_utc: previous?.tools.find((p) => p.name === tool.name)?.creation_utc ?? now.toISOString(),
      })),
      creation_utc: previous?.creation_utc ?? now.toISOString(),
    });
    for (;;) {
      const replaced = await this.streams.change(service.name, (current) => [{ type: 'ServiceRegistered', data: registered(current) }]);
      if (replaced) return replaced;
      const first = registered(undefined);
      try {
        await this.streams.appendFirst(service.name, [{ type: 'ServiceRegistered', data: first }]);
        return first;
      } catch (error) {
        // Registered by someone else meanwhile: replace theirs.
        if (!(error instanceof ResourceIdTakenError)) throw error;
      }
    }
  }

  get(name: string): Promise<StoredService | undefined> {
    return this.streams.get(name);
  }

  list(): Promise<StoredService[]> {
    return this.streams.list();
  }

  delete(name: string): Promise<boolean> {
    return this.streams.delete(name);
  }

  /** The tool a `service:tool` id names, with its service; `undefined` when either is not registered. */
  async tool(serviceName: string, toolName: string): Promise<{ service: StoredService; tool: StoredTool } | undefined> {
    const service = await this.get(serviceName);
    const tool = service?.tools.find((t) => t.name === toolName);
    return service && tool ? { service, tool } : undefined;
  }
}
