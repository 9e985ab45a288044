import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { templateFields } from '@tenet/matching-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { crudEvolve, ResourceStreams, type ValidationDetail, newId, assertNoViolations, violation } from '@tenet/edge';
import { patchRecord } from '../customers/customer.dto.js';
import { scopedToAgent, TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type {
  CannedResponseCreationDto,
  CannedResponseFieldDto,
  CannedResponseUpdateDto,
  CannedResponseView,
} from './canned-response.dto.js';

/** Every `{{placeholder}}` of the template must be a declared field (when fields are declared); names are unique. */
function fieldProblems(value: string, fields: readonly CannedResponseFieldDto[] | undefined): ValidationDetail[] {
  if (!fields) return [];
  const problems: ValidationDetail[] = [];
  const declared = new Set<string>();
  fields.forEach((f, index) => {
    if (declared.has(f.name))
      problems.push(violation(['fields', index, 'name'], `fields declares "${f.name}" twice; field names must be unique`, 'value_error'));
    declared.add(f.name);
  });
  for (const name of templateFields(value)) {
    if (!declared.has(name))
      problems.push(violation(['fields'], `value uses {{${name}}} but fields does not declare "${name}"`, 'value_error'));
  }
  return problems;
}

const normalise = (value: string, fields: readonly CannedResponseFieldDto[] | undefined): CannedResponseView['fields'] =>
  (fields ?? templateFields(value).map((name): CannedResponseFieldDto => ({ name }))).map((f) => ({
    name: f.name,
    description: f.description ?? '',
    examples: f.examples ?? [],
  }));

/**
 * Canned responses (Parlant's `/canned_responses`), one `canned-<id>` stream each (CannedResponseCreated /
 * Updated / Deleted; updates carry resolved values). Tags and placeholders are checked before anything is written.
 */
/** A canned response as a turn's compose request carries it. */
export const cannedTurnItem = (c: CannedResponseView): { id: string; value: string; fields: string[] } => ({
  id: c.id,
  value: c.value,
  fields: templateFields(c.value),
});

@Injectable()
export class CannedResponsesRepository {
  private readonly streams: ResourceStreams<CannedResponseView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, 'canned-', 'CannedResponse', crudEvolve<CannedResponseView>('CannedResponse'));
  }

  /** Throws `RuleViolationError` (bad field or tag) or `ResourceIdTakenError`. */
  async create(input: CannedResponseCreationDto, now: Date): Promise<CannedResponseView> {
    const tags = [...new Set(input.tags ?? [])];
    assertNoViolations([...fieldProblems(input.value, input.fields), ...(await this.tagRefs.check(tags))]);
    const id = input.id ?? newId();
    return this.streams.create(id, {
      id,
      creation_utc: now.toISOString(),
      value: input.value,
      fields: normalise(input.value, input.fields),
      tags,
      signals: input.signals ?? [],
      metadata: input.metadata ?? {},
      field_dependencies: input.field_dependencies ?? [],
    });
  }

  get(id: string): Promise<CannedResponseView | undefined> {
    return this.streams.get(id);
  }

  /** Parlant's filter: responses carrying ANY of the given tags; no tags = all. */
  async list(filter: { tagIds?: readonly string[] } = {}): Promise<CannedResponseView[]> {
    const all = await this.streams.list();
    const wanted = new Set(filter.tagIds ?? []);
    return wanted.size === 0 ? all : all.filter((c) => c.tags.some((t) => wanted.has(t)));
  }

  /** The templates an agent may say, with the `{{placeholders}}` each needs filled. */
  async forAgent(
    agentId: string,
    usable: (response: CannedResponseView) => boolean = () => true,
  ): Promise<{ id: string; value: string; fields: string[] }[]> {
    return (await this.streams.list()).filter((c) => usable(c) && scopedToAgent(c.tags, agentId)).map(cannedTurnItem);
  }

  /**
   * Parlant's rules: `fields` only together with a new `value`; a new `value` without `fields` takes its
   * placeholders as fields (Tenet; Parlant clears them). `undefined` when there is no such response.
   */
  update(id: string, changes: CannedResponseUpdateDto): Promise<CannedResponseView | undefined> {
    return this.streams.update(id, async (current) => {
      const problems: ValidationDetail[] = [];
      if (changes.fields !== undefined && changes.value === undefined)
        problems.push(violation(['fields'], 'fields cannot be updated without providing a new value', 'value_error'));
      if (changes.value !== undefined) problems.push(...fieldProblems(changes.value, changes.fields));
      if (changes.tags) problems.push(...(await this.tagRefs.check(changes.tags.add ?? [], ['tags', 'add'])));
      assertNoViolations(problems);
      const data: Partial<CannedResponseView> = {};
      if (changes.value !== undefined) {
        data.value = changes.value;
        data.fields = normalise(changes.value, changes.fields);
      }
      if (changes.tags) data.tags = patchList(current.tags, changes.tags);
      if (changes.metadata) data.metadata = patchRecord(current.metadata, changes.metadata);
      if (changes.signals) data.signals = changes.signals;
      return data;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
