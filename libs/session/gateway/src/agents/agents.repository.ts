import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { ResourceStreams } from '../catalog/resource-streams.js';
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

/** Agents are event-sourced: one stream per agent (`agent-<id>`), read models folded from it. */
@Injectable()
export class AgentsRepository {
  private readonly streams: ResourceStreams<AgentView>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, PREFIX, 'Agent', evolve);
  }

  /** Throws `ResourceIdTakenError` when the id is taken. */
  create(input: AgentCreationDto, now: Date): Promise<AgentView> {
    const id = input.id ?? newId();
    return this.streams.create(id, {
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
    });
  }

  get(id: string): Promise<AgentView | undefined> {
    return this.streams.get(id);
  }

  list(): Promise<AgentView[]> {
    return this.streams.list();
  }

  /** Optimistic: the update is appended only if nobody changed the agent since it was read. */
  update(id: string, changes: AgentUpdateDto): Promise<AgentView | undefined> {
    return this.streams.update(id, () => ({ ...changes }) as Partial<AgentView>);
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
