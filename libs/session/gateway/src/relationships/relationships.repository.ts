import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { crudEvolve, ResourceStreams } from '../catalog/resource-streams.js';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { newId } from '../ids.js';
import { assertNoViolations, violation } from '../tags/rule-violation.js';
import { TagsRepository } from '../tags/tags.repository.js';
import type { Endpoint, RelationshipCreationDto, RelationshipRecord } from './relationship.dto.js';

/** Relationships between guidelines and tags (Parlant's `/relationships`), one `relationship-<id>` stream each. */
@Injectable()
export class RelationshipsRepository {
  private readonly streams: ResourceStreams<RelationshipRecord>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly guidelines: GuidelinesRepository,
    private readonly tags: TagsRepository,
  ) {
    this.streams = new ResourceStreams(store, 'relationship-', 'Relationship', crudEvolve<RelationshipRecord>('Relationship'));
  }

  /** Checks the one-source/one-target rule and that both ends exist before anything is written. */
  async create(input: RelationshipCreationDto, now: Date): Promise<RelationshipRecord> {
    const problems = [];
    const end = async (side: 'source' | 'target'): Promise<Endpoint | undefined> => {
      const guideline = input[`${side}_guideline`];
      const tag = input[`${side}_tag`];
      if ((guideline === undefined) === (tag === undefined)) {
        problems.push(violation([`${side}_guideline`], `exactly one of ${side}_guideline and ${side}_tag is required`, 'value_error'));
        return undefined;
      }
      if (guideline !== undefined) {
        if (!(await this.guidelines.get(guideline))) problems.push(violation([`${side}_guideline`], `guideline ${guideline} does not exist`, 'value_error.reference'));
        return { type: 'guideline', id: guideline };
      }
      if (!(await this.tags.get(tag as string))) problems.push(violation([`${side}_tag`], `tag ${tag} does not exist`, 'value_error.reference'));
      return { type: 'tag', id: tag as string };
    };
    const source = await end('source');
    const target = await end('target');
    if (source && target && source.type === target.type && source.id === target.id) problems.push(violation(['target_' + target.type], 'a relationship cannot point at its own source', 'value_error'));
    assertNoViolations(problems);
    const id = input.id ?? newId();
    return this.streams.create(id, { id, kind: input.kind, source: source as Endpoint, target: target as Endpoint, creation_utc: now.toISOString() });
  }

  get(id: string): Promise<RelationshipRecord | undefined> {
    return this.streams.get(id);
  }

  /** Parlant's filters: by kind, and by a guideline or tag at either end (`indirect`: also via the guideline's tags). */
  async list(filter: { kind?: string; guidelineId?: string; tagId?: string; indirect?: boolean } = {}): Promise<RelationshipRecord[]> {
    let tagsOfGuideline: string[] = [];
    if (filter.guidelineId && filter.indirect) tagsOfGuideline = (await this.guidelines.get(filter.guidelineId))?.tags ?? [];
    const touches = (r: RelationshipRecord, type: 'guideline' | 'tag', id: string): boolean => (r.source.type === type && r.source.id === id) || (r.target.type === type && r.target.id === id);
    return (await this.streams.list()).filter(
      (r) =>
        (filter.kind === undefined || r.kind === filter.kind) &&
        (filter.guidelineId === undefined || touches(r, 'guideline', filter.guidelineId) || tagsOfGuideline.some((t) => touches(r, 'tag', t))) &&
        (filter.tagId === undefined || touches(r, 'tag', filter.tagId)),
    );
  }

  /** Every relationship whose ends reach the given guidelines (directly, or through a tag they carry). */
  async forGuidelines(guidelines: readonly { id: string; tags?: string[] }[]): Promise<RelationshipRecord[]> {
    const ids = new Set(guidelines.map((g) => g.id));
    const tags = new Set(guidelines.flatMap((g) => g.tags ?? []));
    const reaches = (e: Endpoint): boolean => (e.type === 'guideline' ? ids.has(e.id) : tags.has(e.id));
    return (await this.streams.list()).filter((r) => reaches(r.source) || reaches(r.target));
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
