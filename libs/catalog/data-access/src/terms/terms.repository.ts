import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { newId, crudEvolve, ResourceStreams, assertNoViolations } from '@tenet/edge';
import { TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type { TermCreationDto, TermUpdateDto, TermView } from './term.dto.js';

/** Glossary terms are event-sourced like agents: one `term-<id>` stream each. */
@Injectable()
export class TermsRepository {
  private readonly streams: ResourceStreams<TermView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, 'term-', 'Term', crudEvolve<TermView>('Term'));
  }

  async create(input: TermCreationDto, now: Date): Promise<TermView> {
    const id = input.id ?? newId();
    const tags = [...new Set(input.tags ?? [])];
    assertNoViolations(await this.tagRefs.check(tags));
    return this.streams.create(id, {
      id,
      name: input.name,
      description: input.description,
      synonyms: input.synonyms ?? [],
      tags,
      creation_utc: now.toISOString(),
    });
  }

  get(id: string): Promise<TermView | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { tagId?: string | undefined } = {}): Promise<TermView[]> {
    const all = await this.streams.list();
    return filter.tagId === undefined ? all : all.filter((term) => term.tags.includes(filter.tagId as string));
  }

  update(id: string, changes: TermUpdateDto): Promise<TermView | undefined> {
    return this.streams.update(id, async (current) => {
      const data: Partial<TermView> = {};
      if (changes.name !== undefined) data.name = changes.name;
      if (changes.description !== undefined) data.description = changes.description;
      if (changes.synonyms !== undefined) data.synonyms = changes.synonyms;
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
