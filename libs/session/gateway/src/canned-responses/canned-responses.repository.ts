import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { templateFields } from '@tenet/matching-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { crudEvolve, ResourceStreams } from '../catalog/resource-streams.js';
import { newId } from '../ids.js';
import { assertNoViolations, violation } from '../tags/rule-violation.js';
import { TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type { CannedResponseCreationDto, CannedResponseFieldDto, CannedResponseUpdateDto, CannedResponseView } from './canned-response.dto.js';

const AGENT_TAG = 'agent:';

/** Every `{{placeholder}}` of the template must be a declared field (when fields are declared). */
function fieldProblems(value: string, fields: readonly CannedResponseFieldDto[] | undefined) {
  if (!fields) return [];
  const declared = new Set(fields.map((f) => f.name));
  return templateFields(value)
    .filter((name) => !declared.has(name))
    .map((name) => violation(['fields'], `value uses {{${name}}} but fields does not declare "${name}"`, 'value_error'));
}

const normalise = (value: string, fields: readonly CannedResponseFieldDto[] | undefined): CannedResponseView['fields'] =>
  (fields ?? templateFields(value).map((name): CannedResponseFieldDto => ({ name }))).map((f) => ({ name: f.name, description: f.description ?? '', examples: f.examples ?? [] }));

/** Canned responses (Parlant's `/canned_responses`), one `canned-<id>` stream each; `agent:<id>` tags scope them. */
@Injectable()
export class CannedResponsesRepository {
  private readonly streams: ResourceStreams<CannedResponseView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, 'canned-', 'CannedResponse', crudEvolve<CannedResponseView>('CannedResponse'));
  }

  async create(input: CannedResponseCreationDto, now: Date): Promise<CannedResponseView> {
    const tags = [...new Set(input.tags ?? [])];
    assertNoViolations([...fieldProblems(input.value, input.fields), ...(await this.tagRefs.check(tags))]);
    const id = input.id ?? newId();
    return this.streams.create(id, { id, creation_utc: now.toISOString(), value: input.value, fields: normalise(input.value, input.fields), tags, signals: input.signals ?? [], metadata: input.metadata ?? {}, field_dependencies: [] });
  }

  get(id: string): Promise<CannedResponseView | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { tagIds?: string[] } = {}): Promise<CannedResponseView[]> {
    const all = await this.streams.list();
    return filter.tagIds?.length ? all.filter((c) => filter.tagIds?.every((t) => c.tags.includes(t))) : all;
  }

  /** The templates an agent may say: tagged `agent:<id>`, or not scoped to any agent. */
  async forAgent(agentId: string): Promise<{ id: string; value: string; fields: string[] }[]> {
    return (await this.streams.list())
      .filter((c) => c.tags.includes(`${AGENT_TAG}${agentId}`) || !c.tags.some((t) => t.startsWith(AGENT_TAG)))
      .map((c) => ({ id: c.id, value: c.value, fields: c.fields.map((f) => f.name) }));
  }

  update(id: string, changes: CannedResponseUpdateDto): Promise<CannedResponseView | undefined> {
    return this.streams.update(id, async (current) => {
      const value = changes.value ?? current.value;
      const fields = changes.fields ?? (changes.value !== undefined ? undefined : current.fields);
      assertNoViolations([...fieldProblems(value, fields), ...(changes.tags ? await this.tagRefs.check(changes.tags.add ?? [], ['tags', 'add']) : [])]);
      const data: Partial<CannedResponseView> = { value, fields: normalise(value, fields) };
      if (changes.tags) data.tags = patchList(current.tags, changes.tags);
      if (changes.signals) data.signals = changes.signals;
      return data;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
