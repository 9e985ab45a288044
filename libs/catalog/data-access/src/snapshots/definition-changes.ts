import type { EventStore, StoredEvent } from '@tenet/event-store';
import { OWNER_STREAM_PREFIX, type ResourceAssignedData } from '@tenet/contracts';

/**
 * The log categories a turn's definitions come from: the agent, what is scoped to it (guidelines, journeys,
 * context variables, terms, capabilities, relationships, canned responses, tags), the tool services, and the
 * workspace assignments that decide what an agent's workspace holds.
 */
export const DEFINITION_CATEGORIES = [
  'agent-',
  'guideline-',
  'journey-',
  'contextvar-',
  'term-',
  'capability-',
  'relationship-',
  'canned-',
  'tag-',
  'service-',
  'workspace-',
  OWNER_STREAM_PREFIX,
] as const;

/** Events per read. */
const PAGE = 1_000;

/** Context-variable values share the variables' streams (`contextvar-<id>`) but are not definitions. */
const VALUE_EVENT = /^ContextVariableValue/;
/** Assignments of what is not a definition (a session, a customer, a knowledge source) change no definition. */
const NOT_DEFINITIONS = new Set(['sessions', 'customers', 'knowledge-sources']);

const changesDefinitions = (event: StoredEvent): boolean => {
  if (VALUE_EVENT.test(event.type)) return false;
  if (event.streamId.startsWith(OWNER_STREAM_PREFIX))
    return !NOT_DEFINITIONS.has((event.data as Partial<ResourceAssignedData> | null)?.collection ?? '');
  return true;
};

/**
 * The version of every definition at once, from one read of the log: the events of all definition categories
 * after the last one seen (`readAll` over several categories, indexed by every adapter). Nothing new (the usual
 * case) answers the same version; any definition change — in this process or another one writing the same log —
 * gives a higher one. Concurrent callers share one read.
 */
export class DefinitionChanges {
  private position = 0;
  private version = 0;
  private reading: Promise<number> | undefined;
  /** Reads of the log so far (tests, diagnostics). */
  reads = 0;

  constructor(private readonly store: EventStore) {}

  /** The definitions' version as of now: the log position of the newest definition change (0: none yet). */
  current(): Promise<number> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<number> {
    for (;;) {
      this.reads++;
      const events = await this.store.readAll({ afterPosition: this.position, limit: PAGE, category: DEFINITION_CATEGORIES });
      for (const event of events) if (changesDefinitions(event)) this.version = event.position;
      this.position = events.at(-1)?.position ?? this.position;
      if (events.length < PAGE) return this.version;
    }
  }
}
