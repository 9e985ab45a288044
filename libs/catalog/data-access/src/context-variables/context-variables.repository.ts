import { Inject, Injectable } from '@nestjs/common';
import { ServicesRepository } from '../services/services.repository.js';
import { isValidCron } from './freshness.js';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { patchRecord } from '../customers/customer.dto.js';
import { type ValidationDetail, newId, ResourceStreams, assertNoViolations, violation } from '@tenet/edge';
import { TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import { definitionProblems, normalizeRules, valueProblems } from './context-variable-rules.js';
import {
  NAME_RULE,
  VARIABLE_NAME,
  type ContextVariableCreationDto,
  type ContextVariableUpdateDto,
  type ContextVariableValueView,
  type ContextVariableView,
} from './context-variable.dto.js';

/** The stored state: the definition plus the values per key (a customer id, `tag:<id>`, or any key the caller uses). */
interface ContextVariableRecord extends ContextVariableView {
  values: Record<string, ContextVariableValueView>;
}

type ContextVariableEvent =
  | { type: 'ContextVariableCreated'; data: ContextVariableView }
  | { type: 'ContextVariableUpdated'; data: ContextVariableView }
  | { type: 'ContextVariableDeleted'; data: Record<string, never> }
  | { type: 'ContextVariableValueSet'; data: { key: string; value: ContextVariableValueView } }
  | { type: 'ContextVariableValueDeleted'; data: { key: string } };

/** Updates carry the whole resulting definition, so clearing an optional field is just leaving it out. */
function evolve(current: ContextVariableRecord | undefined, event: Pick<StoredEvent, 'type' | 'data'>): ContextVariableRecord | undefined {
  const e = event as ContextVariableEvent;
  switch (e.type) {
    case 'ContextVariableCreated':
      return { ...e.data, values: {} };
    case 'ContextVariableUpdated':
      return current && { ...e.data, values: current.values };
    case 'ContextVariableDeleted':
      return undefined;
    case 'ContextVariableValueSet':
      return current && { ...current, values: { ...current.values, [e.data.key]: e.data.value } };
    case 'ContextVariableValueDeleted': {
      if (!current) return undefined;
      const { [e.data.key]: _removed, ...values } = current.values;
      return { ...current, values };
    }
    default:
      return current;
  }
}

const definition = ({ values: _values, ...view }: ContextVariableRecord): ContextVariableView => view;

const present = <V>(value: V | null | undefined): value is V => value !== null && value !== undefined;

/**
 * Context variables are event-sourced like agents (`contextvar-<id>` streams); their values live in the same
 * stream, so deleting a variable deletes its values with it and a value is never stored for a missing variable.
 */
@Injectable()
export class ContextVariablesRepository {
  private readonly streams: ResourceStreams<ContextVariableRecord>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
    private readonly services: ServicesRepository,
  ) {
    this.streams = new ResourceStreams(store, 'contextvar-', 'ContextVariable', evolve);
  }

  async create(input: ContextVariableCreationDto, now: Date): Promise<ContextVariableView> {
    const id = input.id ?? newId();
    const view: ContextVariableView = {
      id,
      name: input.name,
      ...(present(input.description) ? { description: input.description } : {}),
      ...(present(input.tool_id) ? { tool_id: { service_name: input.tool_id.service_name, tool_name: input.tool_id.tool_name } } : {}),
      ...(present(input.freshness_rules) ? { freshness_rules: input.freshness_rules } : {}),
      tags: [...new Set(input.tags ?? [])],
      ...(input.data_type !== undefined ? { data_type: input.data_type } : {}),
      ...(present(input.extraction_prompt) ? { extraction_prompt: input.extraction_prompt } : {}),
      required: input.required ?? false,
      ...withRules(normalizeRules(input.validation as Record<string, unknown> | null | undefined)),
      ...(present(input.default_value) ? { default_value: input.default_value } : {}),
      metadata: input.metadata ?? {},
      creation_utc: now.toISOString(),
    };
    assertNoViolations([...(await this.referenceProblems(view, view.tags, ['tags'])), ...definitionProblems(view)]);
    await this.streams.create(id, { ...view, values: {} });
    return view;
  }

  async get(id: string): Promise<ContextVariableView | undefined> {
    const record = await this.streams.get(id);
    return record && definition(record);
  }

  async read(
    id: string,
    includeValues: boolean,
  ): Promise<{ context_variable: ContextVariableView; key_value_pairs?: Record<string, ContextVariableValueView> } | undefined> {
    const record = await this.streams.get(id);
    return record && { context_variable: definition(record), ...(includeValues ? { key_value_pairs: record.values } : {}) };
  }

  async list(filter: { tagId?: string | undefined } = {}): Promise<ContextVariableView[]> {
    const all = (await this.streams.list()).map(definition);
    return filter.tagId === undefined ? all : all.filter((variable) => variable.tags.includes(filter.tagId as string));
  }

  /** The names guidelines may list in `required_context`. */
  async names(): Promise<Set<string>> {
    return new Set((await this.streams.list()).map((variable) => variable.name));
  }

  async update(id: string, changes: ContextVariableUpdateDto): Promise<ContextVariableView | undefined> {
    const record = await this.streams.change(id, async (current) => {
      const { values: _values, ...base } = current;
      const next: ContextVariableView = { ...base };
      if (changes.name !== undefined) next.name = changes.name;
      setOrClear(next, 'description', changes.description);
      if (changes.tool_id !== undefined)
        setOrClear(
          next,
          'tool_id',
          changes.tool_id && { service_name: changes.tool_id.service_name, tool_name: changes.tool_id.tool_name },
        );
      setOrClear(next, 'freshness_rules', changes.freshness_rules);
      if (changes.tags) next.tags = patchList(current.tags, changes.tags);
      if (changes.data_type !== undefined) next.data_type = changes.data_type;
      setOrClear(next, 'extraction_prompt', changes.extraction_prompt);
      if (changes.required !== undefined) next.required = changes.required;
      if (changes.validation !== undefined)
        setOrClear(next, 'validation', normalizeRules(changes.validation as Record<string, unknown> | null) ?? null);
      setOrClear(next, 'default_value', changes.default_value);
      if (changes.metadata) next.metadata = patchRecord(current.metadata, changes.metadata);
      // Only what the request introduces is checked against other resources, so an unrelated edit still works.
      const references = await this.referenceProblems(
        next,
        changes.tags?.add ?? [],
        ['tags', 'add'],
        changes.name !== undefined && changes.name !== current.name,
        changes.tool_id !== undefined || changes.freshness_rules !== undefined,
      );
      assertNoViolations([...references, ...definitionProblems(next)]);
      return [{ type: 'ContextVariableUpdated', data: next }];
    });
    return record && definition(record);
  }

  async delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }

  /** Parlant's bulk delete: every variable carrying `tagId`, or every variable when no tag is given. */
  async deleteMany(ids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (const id of ids) if (await this.streams.delete(id)) deleted++;
    return deleted;
  }

  async getValue(id: string, key: string): Promise<ContextVariableValueView | undefined> {
    return (await this.streams.get(id))?.values[key];
  }

  /** Stores `data` under `key` if it fits the variable's data_type and validation rules; `undefined` = no variable. */
  async setValue(
    id: string,
    key: string,
    data: unknown,
    now: Date,
    provenance: Pick<ContextVariableValueView, 'confidence' | 'source_message_id' | 'extracted_at'> = {},
  ): Promise<ContextVariableValueView | undefined> {
    const value: ContextVariableValueView = { id: newId(), last_modified: now.toISOString(), data, ...provenance };
    const record = await this.streams.change(id, (current) => {
      if (data === undefined || data === null) assertNoViolations([violation(['data'], 'data is required', 'value_error.missing')]);
      assertNoViolations(valueProblems(current, data, 'data').map((msg) => violation(['data'], msg, 'value_error.value')));
      return [{ type: 'ContextVariableValueSet', data: { key, value: { ...value, id: current.values[key]?.id ?? value.id } } }];
    });
    return record?.values[key];
  }

  /** `false` when the variable or the key does not exist. */
  async deleteValue(id: string, key: string): Promise<boolean> {
    let found = false;
    await this.streams.change(id, (current) => {
      found = key in current.values;
      return found ? [{ type: 'ContextVariableValueDeleted', data: { key } }] : [];
    });
    return found;
  }

  private async referenceProblems(
    view: ContextVariableView,
    newTags: readonly string[],
    tagPath: string[],
    checkName = true,
    checkTool = true,
  ): Promise<ValidationDetail[]> {
    const details = await this.tagRefs.check(newTags, tagPath);
    // A tool-backed variable (Parlant's tool_id) is filled by calling a registered service's tool before a turn.
    if (checkTool && view.tool_id) {
      const { service_name, tool_name } = view.tool_id;
      if (!(await this.services.get(service_name)))
        details.push(
          violation(
            ['tool_id'],
            `tool_id must reference an existing tool: service ${service_name} is not registered (${service_name}/${tool_name})`,
            'value_error.reference',
          ),
        );
      else if (!(await this.services.tool(service_name, tool_name)))
        details.push(
          violation(
            ['tool_id'],
            `tool_id must reference an existing tool: service ${service_name} has no tool ${tool_name}`,
            'value_error.reference',
          ),
        );
    }
    // With a tool, the rule says when the tool is called again; without one, when a stored value goes stale.
    if (checkTool && view.freshness_rules !== undefined && !isValidCron(view.freshness_rules)) {
      details.push(
        violation(['freshness_rules'], `freshness_rules must be a valid cron expression: ${view.freshness_rules}`, 'value_error.cron'),
      );
    }
    if (view.data_type !== undefined && !VARIABLE_NAME.test(view.name)) details.push(violation(['name'], NAME_RULE, 'value_error.name'));
    if (checkName && (await this.streams.list()).some((other) => other.name === view.name && other.id !== view.id)) {
      details.push(violation(['name'], `name must be unique: another context variable is named ${view.name}`, 'value_error.unique'));
    }
    return details;
  }
}

function withRules(rules: ContextVariableView['validation']): Pick<ContextVariableView, 'validation'> {
  return rules ? { validation: rules } : {};
}

/** PATCH semantics: absent leaves the field, `null` clears it, a value replaces it. */
function setOrClear<K extends keyof ContextVariableView>(
  target: ContextVariableView,
  key: K,
  value: ContextVariableView[K] | null | undefined,
): void {
  if (value === undefined) return;
  if (value === null) delete target[key];
  else target[key] = value;
}
