import { Inject, Injectable } from '@nestjs/common';
import {
  bindingMatchProblem,
  MATCH_FIELDS,
  resolveBinding,
  type BindingRule,
  type InboundOrigin,
  type Resolution,
} from '@tenet/channels-domain';
import { crudEvolve, ResourceStreams, StreamFoldCache, type EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import type { BindingView } from './binding.dto.js';

/** A workspace's default agent: one stream per workspace, the last `DefaultAgentSet` wins until `DefaultAgentCleared`. */
const DEFAULT_AGENT_PREFIX = 'channeldefault-';
interface DefaultAgent {
  agent_id: string;
}

export class BindingRuleError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const toRule = (view: BindingView): BindingRule => ({
  id: view.id,
  agent_id: view.agent_id,
  creation_utc: view.creation_utc,
  ...Object.fromEntries(MATCH_FIELDS.map((field) => [field, view[field] ?? undefined])),
});

/**
 * Bindings are event-sourced like every catalog resource: one `binding-<id>` stream each (created, updated with
 * resolved fields, deleted), listed through the shared read model; each carries its workspace.
 */
@Injectable()
export class BindingsRepository {
  private readonly streams: ResourceStreams<BindingView>;
  private readonly defaults: StreamFoldCache<DefaultAgent>;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    this.streams = new ResourceStreams(store, 'binding-', 'Binding', crudEvolve<BindingView>('Binding'));
    this.defaults = new StreamFoldCache(store, (current, event) =>
      event.type === 'DefaultAgentSet' ? (event.data as DefaultAgent) : event.type === 'DefaultAgentCleared' ? undefined : current,
    );
  }

  async create(view: BindingView): Promise<BindingView> {
    const problem = bindingMatchProblem(toRule(view));
    if (problem) throw new BindingRuleError('body', problem);
    return this.streams.create(view.id, view);
  }

  async get(workspaceId: string, id: string): Promise<BindingView | undefined> {
    const binding = await this.streams.get(id);
    return binding?.workspace_id === workspaceId ? binding : undefined;
  }

  async list(workspaceId: string): Promise<BindingView[]> {
    return (await this.streams.list())
      .filter((b) => b.workspace_id === workspaceId)
      .sort((a, b) => (a.creation_utc < b.creation_utc ? -1 : a.creation_utc > b.creation_utc ? 1 : a.id < b.id ? -1 : 1));
  }

  /** `changes` are resolved values (`null` clears a field); the result must still set a match field. */
  update(workspaceId: string, id: string, changes: Partial<BindingView>): Promise<BindingView | undefined> {
    return this.streams
      .change(id, (current) => {
        if (current.workspace_id !== workspaceId) return [];
        const next = { ...current, ...changes };
        const problem = bindingMatchProblem(toRule(next));
        if (problem) throw new BindingRuleError('body', problem);
        return [{ type: 'BindingUpdated', data: changes }];
      })
      .then((b) => (b?.workspace_id === workspaceId ? b : undefined));
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (!(await this.get(workspaceId, id))) return false;
    return this.streams.delete(id);
  }

  async defaultAgent(workspaceId: string): Promise<string | undefined> {
    return (await this.defaults.read(DEFAULT_AGENT_PREFIX + workspaceId)).state?.agent_id;
  }

  async setDefaultAgent(workspaceId: string, agentId: string | undefined): Promise<void> {
    await this.store.append(DEFAULT_AGENT_PREFIX + workspaceId, [
      agentId === undefined ? { type: 'DefaultAgentCleared', data: {} } : { type: 'DefaultAgentSet', data: { agent_id: agentId } },
    ]);
  }

  /** Binding resolution over the workspace's bindings (pure: libs/channels/domain). */
  async resolve(workspaceId: string, origin: InboundOrigin): Promise<Resolution> {
    const [bindings, fallback] = await Promise.all([this.list(workspaceId), this.defaultAgent(workspaceId)]);
    return resolveBinding(bindings.map(toRule), origin, fallback);
  }
}
