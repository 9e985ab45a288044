import { DEFAULT_WORKSPACE, OWNER_STREAM_PREFIX, RESOURCE_ASSIGNED_EVENT_TYPE, type ResourceAssignedData } from '@tenet/contracts';
import { crudEvolve, ResourceStreams, StreamCatalog, type EventStore, type Evolve } from '@tenet/event-store';
import type { IntentSettings } from '@tenet/intents-domain';

/** What intents need to know of an agent: its tags, its tools' names and schemas, its intent settings. */
export interface AgentFacts {
  id: string;
  name?: string;
  tags?: string[];
  tools?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
  intents?: Partial<IntentSettings> | null;
}

/** A registered tool service: each registration carries the whole service. */
interface ServiceFacts {
  name: string;
  tools: { name: string; parameters?: Record<string, unknown> }[];
}

const serviceEvolve: Evolve<ServiceFacts> = (current, event) =>
  event.type === 'ServiceRegistered' ? (event.data as ServiceFacts) : event.type === 'ServiceDeleted' ? undefined : current;

/** `service:tool` → its parts (Parlant's ToolId); `undefined` for a bare agent-tool name. */
export function parseServiceTool(id: string): { service: string; tool: string } | undefined {
  const at = id.indexOf(':');
  return at > 0 && at < id.length - 1 ? { service: id.slice(0, at), tool: id.slice(at + 1) } : undefined;
}

/**
 * The catalog resources intents refer to (agents, tags, journeys) and which workspace owns what, read from the
 * shared event log's streams (`agent-<id>`, `tag-<id>`, `journey-<id>`, `owner-<collection>-<id>`) — the
 * resources' own events, read-only — so the intents service depends on no other service's code (ADR 0031).
 */
export class CatalogReferences {
  private readonly agents: ResourceStreams<AgentFacts>;
  private readonly tags: ResourceStreams<{ id: string }>;
  private readonly journeys: ResourceStreams<{ id: string; conditions?: string[] }>;
  private readonly owners: StreamCatalog<ResourceAssignedData>;
  private readonly services: ResourceStreams<ServiceFacts>;

  constructor(store: EventStore) {
    this.agents = new ResourceStreams(store, 'agent-', 'Agent', crudEvolve<AgentFacts>('Agent'));
    this.tags = new ResourceStreams(store, 'tag-', 'Tag', crudEvolve<{ id: string }>('Tag'));
    this.journeys = new ResourceStreams(store, 'journey-', 'Journey', crudEvolve<{ id: string; conditions?: string[] }>('Journey'));
    this.services = new ResourceStreams(store, 'service-', 'Service', serviceEvolve);
    this.owners = new StreamCatalog(
      store,
      OWNER_STREAM_PREFIX,
      (current, event) => current ?? (event.type === RESOURCE_ASSIGNED_EVENT_TYPE ? (event.data as ResourceAssignedData) : undefined),
    );
  }

  agent(id: string): Promise<AgentFacts | undefined> {
    return this.agents.get(id);
  }

  allAgents(): Promise<AgentFacts[]> {
    return this.agents.list();
  }

  async journeyExists(id: string): Promise<boolean> {
    return (await this.journeys.get(id)) !== undefined;
  }

  /** Whether a registered service offers the tool. */
  async serviceHasTool(service: string, tool: string): Promise<boolean> {
    return ((await this.services.get(service))?.tools ?? []).some((t) => t.name === tool);
  }

  /** The parameter schema of a tool an intent names: the agent's own tool, or a registered service's `service:tool`. */
  async toolParameters(agent: AgentFacts | undefined, tool: string): Promise<Record<string, unknown> | undefined> {
    const serviceTool = parseServiceTool(tool);
    if (!serviceTool) return agent?.tools?.find((t) => t.name === tool)?.parameters;
    return (await this.services.get(serviceTool.service))?.tools.find((t) => t.name === serviceTool.tool)?.parameters;
  }

  /** The first condition guideline of a journey (a match of it activates the journey), if it has one. */
  async journeyCondition(id: string): Promise<string | undefined> {
    return (await this.journeys.get(id))?.conditions?.[0];
  }

  /** Why a tag id names nothing: a tag, or Parlant's synthetic `agent:<id>` / `journey:<id>`; undefined when it exists. */
  async missingTag(tag: string): Promise<string | undefined> {
    if (tag.startsWith('agent:')) return (await this.agents.get(tag.slice(6))) ? undefined : `agent ${tag.slice(6)} does not exist`;
    if (tag.startsWith('journey:')) return (await this.journeys.get(tag.slice(8))) ? undefined : `journey ${tag.slice(8)} does not exist`;
    return (await this.tags.get(tag)) ? undefined : `tag ${tag} does not exist`;
  }

  /** The workspace a resource belongs to (ADR 0018: unassigned = `default`). */
  async ownerOf(collection: string, id: string): Promise<string> {
    await this.owners.catchUp();
    return this.owners.get(`${collection}-${id}`)?.workspace_id ?? DEFAULT_WORKSPACE;
  }
}
