import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { crudEvolve, ResourceStreams, newId, assertNoViolations } from '@tenet/edge';
import { scopedToAgent, TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type { CapabilityCreationDto, CapabilityUpdateDto, CapabilityView } from './capability.dto.js';

/** Capabilities are event-sourced like terms: one `capability-<id>` stream each. */
@Injectable()
export class CapabilitiesRepository {
  private readonly streams: ResourceStreams<CapabilityView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, 'capability-', 'Capability', crudEvolve<CapabilityView>('Capability'));
  }

  async create(input: CapabilityCreationDto, now: Date): Promise<CapabilityView> {
    const id = input.id ?? newId();
    const tags = [...new Set(input.tags ?? [])];
    assertNoViolations(await this.tagRefs.check(tags));
    return this.streams.create(id, {
      id,
      title: input.title,
      description: input.description,
      signals: input.signals,
      tags,
      creation_utc: now.toISOString(),
    });
  }

  get(id: string): Promise<CapabilityView | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { tagId?: string | undefined } = {}): Promise<CapabilityView[]> {
    const all = await this.streams.list();
    return filter.tagId === undefined ? all : all.filter((capability) => capability.tags.includes(filter.tagId as string));
  }

  /**
   * The capabilities an agent has: those tagged `agent:<id>`, and those scoped to no agent (as terms and variables).
   * `usable` screens each stored item before its tags are read (a turn leaves a malformed one out).
   */
  async forAgent(agentId: string, usable: (capability: CapabilityView) => boolean = () => true): Promise<CapabilityView[]> {
    return (await this.streams.list()).filter((capability) => usable(capability) && scopedToAgent(capability.tags, agentId));
  }

  update(id: string, changes: CapabilityUpdateDto): Promise<CapabilityView | undefined> {
    return this.streams.update(id, async (current) => {
      const data: Partial<CapabilityView> = {};
      if (changes.title !== undefined) data.title = changes.title;
      if (changes.description !== undefined) data.description = changes.description;
      if (changes.signals !== undefined) data.signals = changes.signals;
      if (changes.tags) {
        assertNoViolations(await this.tagRefs.check(changes.tags.add ?? [], ['tags', 'add']));
        data.tags = patchList(current.tags, changes.tags);
      }
      return data;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
