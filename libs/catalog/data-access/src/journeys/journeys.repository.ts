import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { ResourceStreams, type ResourceEvent } from '@tenet/edge';
import { AGENT_TAG_PREFIX } from '../tags/tag-prefixes.js';
import type { JourneyRecord } from './journey.dto.js';

/** Updates carry the whole resulting journey, so clearing `initial_step` or replacing the graph replays exactly. */
function evolve(current: JourneyRecord | undefined, event: Pick<StoredEvent, 'type' | 'data'>): JourneyRecord | undefined {
  switch (event.type) {
    case 'JourneyCreated':
      return event.data as JourneyRecord;
    case 'JourneyUpdated':
      return current && (event.data as JourneyRecord);
    case 'JourneyDeleted':
      return undefined;
    default:
      return current;
  }
}

/**
 * Journey definitions, event-sourced like the other catalog resources: one `journey-<id>` stream each. Holds
 * no rules of its own (those are `validateJourney` and `JourneyCatalog`), so guidelines, tags and agents can
 * resolve journey references through it without a dependency cycle.
 */
@Injectable()
export class JourneysRepository {
  private readonly streams: ResourceStreams<JourneyRecord>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, 'journey-', 'Journey', evolve);
  }

  get(id: string): Promise<JourneyRecord | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { tagId?: string | undefined } = {}): Promise<JourneyRecord[]> {
    const all = await this.streams.list();
    return filter.tagId === undefined ? all : all.filter((journey) => journey.tags.includes(filter.tagId as string));
  }

  /**
   * The journeys an agent follows: those it lists in `journeys` (docs/data-model.md#journeys), and those scoped to it the way
   * Parlant scopes them — untagged, tagged `agent:<id>`, or carrying one of the agent's tags. None when the
   * agent turns journeys off (`config.enable_journeys: false`). Highest priority first, then oldest.
   * `usable` screens each stored journey before its tags are read (by default: that they are a list).
   */
  async forAgent(
    agent: { id: string; tags: readonly string[]; journeys?: readonly string[]; config: { enable_journeys: boolean } },
    usable: (journey: JourneyRecord) => boolean = (journey) => Array.isArray(journey.tags),
  ): Promise<JourneyRecord[]> {
    if (!agent.config.enable_journeys) return [];
    const listed = new Set(agent.journeys ?? []);
    return (await this.streams.list())
      .filter(
        (j) =>
          usable(j) &&
          (listed.has(j.id) ||
            j.tags.length === 0 ||
            j.tags.includes(AGENT_TAG_PREFIX + agent.id) ||
            j.tags.some((t) => agent.tags.includes(t))),
      )
      .sort((a, b) => b.priority - a.priority || a.creation_utc.localeCompare(b.creation_utc) || a.id.localeCompare(b.id));
  }

  create(journey: JourneyRecord): Promise<JourneyRecord> {
    return this.streams.create(journey.id, journey);
  }

  /** `decide` returns the whole next journey (or throws a rule violation: nothing is written). */
  replace(id: string, decide: (current: JourneyRecord) => Promise<JourneyRecord>): Promise<JourneyRecord | undefined> {
    return this.streams.change(id, async (current): Promise<ResourceEvent[]> => [{ type: 'JourneyUpdated', data: await decide(current) }]);
  }

  deleted(id: string): Promise<JourneyRecord | undefined> {
    return this.streams.deleted(id);
  }
}
