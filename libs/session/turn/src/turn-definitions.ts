import type { Logger } from '@nestjs/common';
import { JourneyDefinitionV1, rpcValidator, RpcValidationError, TurnDefinitionSchemasV1 } from '@tenet/contracts';
import { redactSecrets } from '@tenet/llm';
import type { AgentDefinitions } from '@tenet/catalog-data-access';

/** The kinds of stored definition a turn reads; each is checked on its own before it goes into a request. */
export type DefinitionKind = keyof typeof TurnDefinitionSchemasV1 | 'journey' | 'context_variable';

/** A stored definition the turn left out, as flagged on `ready` (`skipped_definitions`). */
export interface SkippedDefinition {
  kind: DefinitionKind;
  id: string;
  /** Path of the offending field in the definition (`signals`, `steps/0/id`), or `` for the whole item. */
  field: string;
  rule: string;
}

const itemValidators = {
  ...Object.fromEntries(Object.entries(TurnDefinitionSchemasV1).map(([kind, schema]) => [kind, rpcValidator(schema)])),
  journey: rpcValidator(JourneyDefinitionV1),
} as Record<Exclude<DefinitionKind, 'context_variable'>, (item: unknown) => unknown>;

/** Distinct bad definitions remembered as logged; past this the memory starts over (and each is logged once more). */
const REPORTED_LIMIT = 10_000;

const idOf = (record: unknown): string => {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
};

const problemOf = (error: unknown): { field: string; rule: string } => {
  if (error instanceof RpcValidationError && error.problems[0])
    return { field: error.problems[0].field.replace(/^\//, ''), rule: error.problems[0].rule };
  return { field: '', rule: `could not be read: ${redactSecrets(error instanceof Error ? error.message : String(error))}` };
};

/**
 * Keeps one bad stored definition from failing every turn (ADR 0024). Each definition a turn reads is
 * checked before it is used: its tags must be a list of strings (the agent scoping reads them) and its turn form
 * must satisfy the item schema of the request it goes into. A definition that fails is left out of the turn,
 * flagged on `ready` and logged once per process (not once per turn) with the field and the rule it broke.
 */
export class DefinitionScreen {
  private readonly reported = new Set<string>();
  /**
   * Each stored definition's verdict by kind, kept with the definition object itself: the snapshots
   * (`AGENT_DEFINITIONS`) hand every turn the same objects until a definition changes, so a definition is
   * checked against its schema once, not on every turn; a changed definition is a new object, checked anew.
   */
  private readonly verdicts = new WeakMap<object, Map<DefinitionKind, Problem | true>>();

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  /** The checks of one turn over the agent's `current` definitions; `skipped` lists what it left out. */
  forTurn(current: AgentDefinitions): TurnDefinitions {
    return new TurnDefinitions(current, (skipped) => this.report(skipped), this.verdicts);
  }

  private report(skipped: SkippedDefinition): void {
    const key = JSON.stringify([skipped.kind, skipped.id, skipped.field, skipped.rule]);
    if (this.reported.has(key)) return;
    if (this.reported.size >= REPORTED_LIMIT) this.reported.clear();
    this.reported.add(key);
    this.logger.warn(
      `${skipped.kind} ${skipped.id || '(no id)'} is left out of turns until it is fixed: ${skipped.field || 'the definition'} ${skipped.rule}`,
    );
  }
}

type Problem = { field: string; rule: string };

export class TurnDefinitions {
  private readonly left = new Map<string, SkippedDefinition>();

  constructor(
    /** The agent's definitions this turn reads, all as of one version of the log. */
    readonly current: AgentDefinitions,
    private readonly report: (skipped: SkippedDefinition) => void,
    private readonly verdicts = new WeakMap<object, Map<DefinitionKind, Problem | true>>(),
  ) {}

  /** What this turn left out, once each. */
  get skipped(): SkippedDefinition[] {
    return [...this.left.values()];
  }

  /**
   * Whether the stored `record` may take part in the turn: its tags (when it has the field) are strings and
   * `toItem(record)` — the form the turn sends — passes the kind's item schema. A throw in `toItem` counts as unusable.
   */
  usable<T>(kind: DefinitionKind, record: T, toItem?: (record: T) => unknown): boolean {
    // Only a check with the kind's item form is remembered (the same `toItem` every caller of a kind passes).
    const known = toItem && typeof record === 'object' && record !== null ? this.verdicts.get(record)?.get(kind) : undefined;
    if (known === true) return true;
    if (known !== undefined) {
      this.leaveOut({ kind, id: idOf(record), ...known });
      return false;
    }
    const verdict = this.check(kind, record, toItem);
    if (toItem && typeof record === 'object' && record !== null) {
      const byKind = this.verdicts.get(record) ?? new Map<DefinitionKind, Problem | true>();
      byKind.set(kind, verdict === true ? true : { field: verdict.field, rule: verdict.rule });
      this.verdicts.set(record, byKind);
    }
    if (verdict === true) return true;
    this.leaveOut(verdict);
    return false;
  }

  private check<T>(kind: DefinitionKind, record: T, toItem?: (record: T) => unknown): SkippedDefinition | true {
    try {
      const tags = (record as { tags?: unknown } | null)?.tags;
      if (record === null || typeof record !== 'object') throw new RpcValidationError([{ field: '/', rule: 'must be object' }]);
      if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')))
        throw new RpcValidationError([{ field: '/tags', rule: 'must be array of strings' }]);
      if (toItem) {
        const item = toItem(record);
        if (kind !== 'context_variable') itemValidators[kind](item);
      }
      return true;
    } catch (error) {
      return { kind, id: idOf(record), ...problemOf(error) };
    }
  }

  /** Leaves `record` out of the turn because `error` happened while reading it. */
  skip(kind: DefinitionKind, record: unknown, error: unknown): void {
    this.leaveOut({ kind, id: idOf(record), ...problemOf(error) });
  }

  private leaveOut(skipped: SkippedDefinition): void {
    const key = `${skipped.kind}:${skipped.id}`;
    if (this.left.has(key)) return;
    this.left.set(key, skipped);
    this.report(skipped);
  }
}
