import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { newId, crudEvolve, ResourceStreams } from '@tenet/edge';
import type { TagCreationDto, TagUpdateDto, TagView } from './tag.dto.js';

/** Tags are event-sourced like agents: one `tag-<id>` stream per tag (TagCreated/TagUpdated/TagDeleted). */
@Injectable()
export class TagsRepository {
  private readonly streams: ResourceStreams<TagView>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, 'tag-', 'Tag', crudEvolve<TagView>('Tag'));
  }

  create(input: TagCreationDto, now: Date): Promise<TagView> {
    const id = newId();
    return this.streams.create(id, { id, name: input.name, creation_utc: now.toISOString() });
  }

  get(id: string): Promise<TagView | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { name?: string | undefined } = {}): Promise<TagView[]> {
    const all = await this.streams.list();
    return filter.name === undefined ? all : all.filter((tag) => tag.name === filter.name);
  }

  update(id: string, changes: TagUpdateDto): Promise<TagView | undefined> {
    return this.streams.update(id, () => ({ name: changes.name }));
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
