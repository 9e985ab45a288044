import { Inject, Injectable } from '@nestjs/common';
import { ConcurrencyError, type EventStore, type StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { StreamCatalog } from '../catalog/stream-catalog.js';
import { newId } from '../ids.js';
import { defaultAgentConfig, type AgentCreationDto, type AgentUpdateDto, type AgentView } from './agent.dto.js';

const PREFIX = 'agent-';

type AgentEvent =
  | { type: 'AgentCreated'; data: AgentView }
  | { type: 'AgentUpdated'; data: Partial<AgentView> }
  | { type: 'AgentDeleted'; data: Record<string, never> };

function evolve(current: AgentView | undefined, event: Pick<StoredEvent, 'type' | 'data'>): AgentView | undefined {
  const e = event as AgentEvent;
  switch (e.type) {
    case 'AgentCreated':
      return e.data;
    case 'AgentUpdated':
      return current && { ...current, ...e.data, config: { ...current.config, ...(e.data.config ?? {}) } };
    case 'AgentDeleted':
      return undefined;
    default:
      return current;
  }
}

export class AgentIdTakenError extends Error {
  readonly code = 'AGENT.ID_TAKEN';
}

/** Agents are event-sourced: one stream per agent (`agent-<id>`), read models folded from it. */
@Injectable()
export class AgentsRepository {
  private readonly catalog: StreamCatalog<AgentView>;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    this.catalog = new StreamCatalog(store, PREFIX, evolve);
  }

  async create(input: AgentCreationDto, now: Date): Promise<AgentView> {
    const id = input.id ?? newId();
    const agent: AgentView = {
      id,
      name: input.name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.system_prompt !== undefined ? { system_prompt: input.system_prompt } : {}),
      max_engine_iterations: input.max_engine_iterations ?? 1,
      composition_mode: input.composition_mode ?? 'fluid',
      message_output_mode: input.message_output_mode ?? 'block',
      tags: input.tags ?? [],
      config: { ...defaultAgentConfig, ...(input.config ?? {}) },
      creation_utc: now.toISOString(),
    };
    try {
      await this.store.append(PREFIX + id, [{ type: 'AgentCreated', data: agent }], { expectedVersion: 'no_stream' });
    } catch (error) {
      if (error instanceof ConcurrencyError) throw new AgentIdTakenError(`agent id ${id} is already taken`);
      throw error;
    }
    return agent;
  }

  async get(id: string): Promise<AgentView | undefined> {
    const events = await this.store.readStream(PREFIX + id);
    return events.reduce<AgentView | undefined>(evolve, undefined);
  }

  list(): Promise<AgentView[]> {
    return this.catalog.all();
  }

  /** Optimistic: the update is appended only if nobody changed the agent since it was read. */
  async update(id: string, changes: AgentUpdateDto): Promise<AgentView | undefined> {
    for (;;) {
      const events = await this.store.readStream(PREFIX + id);
      const current = events.reduce<AgentView | undefined>(evolve, undefined);
      if (!current) return undefined;
      const data = { ...changes } as Partial<AgentView>;
      try {
        await this.store.append(PREFIX + id, [{ type: 'AgentUpdated', data }], { expectedVersion: events.length - 1 });
        return evolve(current, { type: 'AgentUpdated', data });
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  async delete(id: string): Promise<boolean> {
    const events = await this.store.readStream(PREFIX + id);
    if (!events.reduce<AgentView | undefined>(evolve, undefined)) return false;
    try {
      await this.store.append(PREFIX + id, [{ type: 'AgentDeleted', data: {} }], { expectedVersion: events.length - 1 });
      return true;
    } catch (error) {
      if (error instanceof ConcurrencyError) return this.delete(id);
      throw error;
    }
  }
}
