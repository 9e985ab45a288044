import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AgentsRepository } from '../agents/agents.repository.js';
import { crudEvolve, ResourceStreams, type ValidationDetail, newId, assertNoViolations, violation } from '@tenet/edge';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { AGENT_TAG_PREFIX, TagReferences } from '../tags/tag-references.js';
import { TagsRepository } from '../tags/tags.repository.js';
import {
  RELATIONSHIP_KINDS,
  type Endpoint,
  type Relationship,
  type RelationshipCreationDto,
  type RelationshipFilter,
  type RelationshipRecord,
} from './relationship.dto.js';

const key = (e: Endpoint): string => `${e.type}:${e.id}`;
const same = (a: Endpoint, b: Endpoint): boolean => a.type === b.type && a.id === b.id;
const internal = ({ id, kind, source, target }: RelationshipRecord): Relationship => ({
  id,
  kind,
  source: { ...source },
  target: { ...target },
});

/**
 * Relationships between guidelines and tags (Parlant's `/relationships`), one `relationship-<id>` stream each
 * (RelationshipCreated / RelationshipDeleted). Both ends are checked before anything is appended.
 */
@Injectable()
export class RelationshipsRepository {
  private readonly streams: ResourceStreams<RelationshipRecord>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly guidelines: GuidelinesRepository,
    private readonly tags: TagsRepository,
    private readonly agents: AgentsRepository,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, 'relationship-', 'Relationship', crudEvolve<RelationshipRecord>('Relationship'));
  }

  /**
   * Exactly one source and one target, each an existing guideline or tag, not the same thing. Creating a
   * relationship that already exists (same ends, same kind) returns the existing one — Parlant upserts it.
   */
  async create(input: RelationshipCreationDto, now: Date): Promise<RelationshipRecord> {
    const problems: ValidationDetail[] = [];
    const end = async (side: 'source' | 'target'): Promise<Endpoint | undefined> => {
      const guideline = input[`${side}_guideline`];
      const tag = input[`${side}_tag`];
      const tool = input[`${side}_tool`];
      const given = [guideline, tag, tool].filter((v) => v !== undefined).length;
      if (given !== 1) {
        problems.push(
          violation(
            [`${side}_guideline`],
            `exactly one of ${side}_guideline and ${side}_tag is required`,
            given === 0 ? 'value_error.missing' : 'value_error',
          ),
        );
        return undefined;
      }
      if (tool !== undefined) {
        problems.push(
          violation(
            [`${side}_tool`],
            `${side}_tool is not supported: Tenet's tools are defined on agents, not tool services; relate guidelines or tags`,
            'value_error',
          ),
        );
        return undefined;
      }
      if (guideline !== undefined) {
        if (!(await this.guidelines.get(guideline)))
          problems.push(violation([`${side}_guideline`], `guideline ${guideline} does not exist`, 'value_error.reference'));
        return { type: 'guideline', id: guideline };
      }
      const missing = await this.tagRefs.missing(tag as string);
      if (missing)
        problems.push(violation([`${side}_tag`], `${side}_tag must reference an existing tag: ${missing}`, 'value_error.reference'));
      return { type: 'tag', id: tag as string };
    };
    const source = await end('source');
    const target = await end('target');
    if (source && target && same(source, target))
      problems.push(violation([`target_${target.type}`], 'source and target cannot be the same entity', 'value_error'));
    assertNoViolations(problems);
    const from = source as Endpoint;
    const to = target as Endpoint;
    const existing = (await this.streams.list()).find((r) => r.kind === input.kind && same(r.source, from) && same(r.target, to));
    if (existing) return existing;
    const id = newId();
    return this.streams.create(id, { id, kind: input.kind, source: from, target: to, creation_utc: now.toISOString() });
  }

  get(id: string): Promise<RelationshipRecord | undefined> {
    return this.streams.get(id);
  }

  /**
   * Parlant's list (src/parlant/core/app_modules/relationships.py `find`, src/parlant/core/relationships.py
   * `list_relationships`): with no guideline or tag, every relationship (of `kind`); with one, the relationships
   * it is the source of, then those it is the target of — `indirect` (the default) follows chains of the same
   * kind: everything reachable from it as a source, and everything leading to it as a target.
   */
  async list(filter: RelationshipFilter = {}): Promise<RelationshipRecord[]> {
    const all = (await this.streams.list()).filter((r) => filter.kind === undefined || r.kind === filter.kind);
    const start: Endpoint | undefined =
      filter.guidelineId !== undefined
        ? { type: 'guideline', id: filter.guidelineId }
        : filter.tagId !== undefined
          ? { type: 'tag', id: filter.tagId }
          : undefined;
    if (!start) return all;
    const found = new Map<string, RelationshipRecord>();
    const add = (r: RelationshipRecord): void => void (found.has(r.id) ? undefined : found.set(r.id, r));
    if (filter.indirect === false) {
      all.filter((r) => same(r.source, start)).forEach(add);
      all.filter((r) => same(r.target, start)).forEach(add);
      return [...found.values()];
    }
    for (const kind of filter.kind ? [filter.kind] : RELATIONSHIP_KINDS) {
      const edges = all.filter((r) => r.kind === kind);
      this.reachable(edges, start, 'forward').forEach(add);
      this.reachable(edges, start, 'backward').forEach(add);
    }
    return [...found.values()];
  }

  /** Every relationship, in the shape the matcher resolves. */
  async all(): Promise<Relationship[]> {
    return (await this.streams.list()).map(internal);
  }

  /**
   * The relationships that touch the given guidelines — an end is one of them, or a tag one of them carries —
   * in the shape the matcher resolves. Pass guideline ids, or guidelines with their tags (saves a lookup).
   * `usable` screens each stored relationship (in that shape) before its ends are read.
   */
  async forGuidelines(
    guidelines: readonly (string | { id: string; tags?: readonly string[] | undefined })[],
    usable: (relationship: Relationship) => boolean = () => true,
  ): Promise<Relationship[]> {
    const resolved = await Promise.all(
      guidelines.map(async (g) =>
        typeof g === 'string' ? { id: g, tags: (await this.guidelines.get(g))?.tags ?? [] } : { id: g.id, tags: g.tags ?? [] },
      ),
    );
    const ids = new Set(resolved.map((g) => g.id));
    const tags = new Set(resolved.flatMap((g) => g.tags));
    const reaches = (e: Endpoint): boolean => (e.type === 'guideline' ? ids.has(e.id) : tags.has(e.id));
    return (await this.streams.list()).map(internal).filter((r) => usable(r) && (reaches(r.source) || reaches(r.target)));
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }

  /** Deletes every relationship with `endpoint` at either end (a deleted guideline takes its relationships along). */
  async deleteTouching(endpoint: Endpoint): Promise<number> {
    const touching = (await this.streams.list()).filter((r) => same(r.source, endpoint) || same(r.target, endpoint));
    let deleted = 0;
    for (const r of touching) if (await this.streams.delete(r.id)) deleted++;
    return deleted;
  }

  /** Parlant's wire shape (`RelationshipDTO`): each end as `source_guideline`/`source_tag` (and targets), rendered in full. */
  async toWire(r: RelationshipRecord): Promise<Record<string, unknown>> {
    const end = async (side: 'source' | 'target', e: Endpoint): Promise<Record<string, unknown>> => {
      if (e.type === 'guideline') return { [`${side}_guideline`]: (await this.guidelines.get(e.id)) ?? { id: e.id } };
      return { [`${side}_tag`]: await this.tagView(e.id) };
    };
    return { id: r.id, ...(await end('source', r.source)), ...(await end('target', r.target)), kind: r.kind };
  }

  /** A tag as Parlant shows it; an `agent:<id>` tag is named after the agent. */
  private async tagView(tagId: string): Promise<{ id: string; name: string }> {
    if (tagId.startsWith(AGENT_TAG_PREFIX))
      return { id: tagId, name: (await this.agents.get(tagId.slice(AGENT_TAG_PREFIX.length)))?.name ?? tagId };
    const tag = await this.tags.get(tagId);
    return { id: tagId, name: tag?.name ?? tagId };
  }

  /** networkx-style BFS over one kind's edges: each relationship that first reaches a node, in breadth-first order. */
  private reachable(edges: readonly RelationshipRecord[], start: Endpoint, direction: 'forward' | 'backward'): RelationshipRecord[] {
    const from = (r: RelationshipRecord): Endpoint => (direction === 'forward' ? r.source : r.target);
    const to = (r: RelationshipRecord): Endpoint => (direction === 'forward' ? r.target : r.source);
    const visited = new Set([key(start)]);
    const queue = [start];
    const out: RelationshipRecord[] = [];
    for (let node = queue.shift(); node; node = queue.shift()) {
      const current = node;
      for (const r of edges.filter((e) => same(from(e), current))) {
        const next = to(r);
        if (visited.has(key(next))) continue;
        visited.add(key(next));
        queue.push(next);
        out.push(r);
      }
    }
    return out;
  }
}
