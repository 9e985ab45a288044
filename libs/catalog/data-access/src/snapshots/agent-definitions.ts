import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { WorkspaceDirectory } from '@tenet/edge';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { LRUCache } from 'lru-cache';
import type { AgentView } from '../agents/agent.dto.js';
import { AgentsRepository } from '../agents/agents.repository.js';
import type { CapabilityView } from '../capabilities/capability.dto.js';
import { CapabilitiesRepository } from '../capabilities/capabilities.repository.js';
import type { ContextVariableView } from '../context-variables/context-variable.dto.js';
import { ContextVariablesRepository } from '../context-variables/context-variables.repository.js';
import type { AgentGuideline } from '../guidelines/guideline.dto.js';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { scopedToAgent } from '../tags/tag-references.js';
import type { TermView } from '../terms/term.dto.js';
import { TermsRepository } from '../terms/terms.repository.js';
import { DefinitionChanges } from './definition-changes.js';

/** The port a turn reads an agent's definitions through (bound to `AgentDefinitionSnapshots` by `CatalogDataModule`). */
export const AGENT_DEFINITIONS = Symbol.for('tenet.catalog.agent-definitions');

/**
 * An agent's definitions as one turn reads them, all as of one version of the log. Read-only: the same objects
 * serve every turn until a definition changes, so what is derived from them can be kept (`derived`).
 */
export interface AgentDefinitions {
  /** Log position of the newest definition change this snapshot reflects. */
  readonly version: number;
  readonly agent: AgentView;
  /** The agent's workspace. */
  readonly workspaceId: string;
  /**
   * The guidelines of the agent's workspace that apply to it (tagged `agent:<id>`, one of its tags or journeys,
   * or untagged), highest priority first — plus those of the workspace whose tags cannot be read, so the turn's
   * screen leaves them out and says so, as before.
   */
  readonly guidelines: readonly AgentGuideline[];
  /** Context variables (definitions, not values) in the agent's scope, plus the unreadable ones (as above). */
  readonly variables: readonly ContextVariableView[];
  /** Glossary terms in the agent's scope, plus the unreadable ones. */
  readonly terms: readonly TermView[];
  /** Capabilities in the agent's scope, plus the unreadable ones. */
  readonly capabilities: readonly CapabilityView[];
  /** `build()` once per snapshot: work that depends only on these definitions (compiled forms, prompt pieces); a rejected promise is not kept. */
  derived<T>(key: string, build: () => T): T;
}

export interface AgentDefinitionSource {
  /** The agent's definitions as of now; `undefined` when the agent does not exist. One read of the log when nothing changed. */
  forTurn(agentId: string): Promise<AgentDefinitions | undefined>;
}

/** Agents whose snapshots one process keeps (least recently used dropped first; a dropped one is rebuilt on demand). */
const SNAPSHOTS = 10_000;

const readableTags = (tags: unknown): tags is string[] => Array.isArray(tags) && tags.every((t) => typeof t === 'string');
/** In scope, or unreadable (then the turn's screen reports it instead of this filter hiding it). */
const scopedOrUnreadable = <T extends { tags?: unknown }>(items: readonly T[], agentId: string): T[] =>
  items.filter((item) => item === null || typeof item !== 'object' || !readableTags(item.tags) || scopedToAgent(item.tags, agentId));

class Snapshot implements AgentDefinitions {
  private readonly memo = new Map<string, unknown>();

  constructor(
    readonly version: number,
    readonly agent: AgentView,
    readonly workspaceId: string,
    readonly guidelines: readonly AgentGuideline[],
    readonly variables: readonly ContextVariableView[],
    readonly terms: readonly TermView[],
    readonly capabilities: readonly CapabilityView[],
  ) {}

  derived<T>(key: string, build: () => T): T {
    if (!this.memo.has(key)) {
      const value = build();
      this.memo.set(key, value);
      // A promise that fails is not kept: the next turn builds it again.
      if (value instanceof Promise) value.catch(() => this.memo.delete(key));
    }
    return this.memo.get(key) as T;
  }
}

/**
 * Per-agent snapshots of the definitions a turn reads, kept current by the log itself: each turn asks
 * `DefinitionChanges` for the definitions' version (one read, of the definition categories only); an agent's
 * snapshot built at that version serves the turn, any definition change since makes the next turn rebuild it.
 * Correct across processes (the version comes from the shared log, not from this process's writes) and
 * workspace-scoped (guidelines of other workspaces never enter a snapshot).
 */
@Injectable()
export class AgentDefinitionSnapshots implements AgentDefinitionSource {
  readonly changes: DefinitionChanges;
  private readonly snapshots = new LRUCache<string, Promise<Snapshot | undefined>>({ max: SNAPSHOTS });
  /** Snapshots built so far (tests, diagnostics). */
  builds = 0;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly agents: AgentsRepository,
    private readonly guidelineCatalog: GuidelinesRepository,
    private readonly variableCatalog: ContextVariablesRepository,
    private readonly termCatalog: TermsRepository,
    private readonly capabilityCatalog: CapabilitiesRepository,
    private readonly directory: WorkspaceDirectory,
  ) {
    this.changes = new DefinitionChanges(store);
  }

  async forTurn(agentId: string): Promise<AgentDefinitions | undefined> {
    const version = await this.changes.current();
    const cached = this.snapshots.get(agentId);
    const snapshot = cached && (await cached.catch(() => undefined));
    if (snapshot && snapshot.version >= version) return snapshot;
    const building = this.build(agentId, version);
    this.snapshots.set(agentId, building);
    // A failed or missing build is not kept: the next turn tries again.
    const built = await building.catch((error: unknown) => {
      this.snapshots.delete(agentId);
      throw error;
    });
    if (!built) this.snapshots.delete(agentId);
    return built;
  }

  private async build(agentId: string, version: number): Promise<Snapshot | undefined> {
    this.builds++;
    const agent = await this.agents.get(agentId);
    if (!agent) return undefined;
    const workspaceId = await this.directory.ownerOf('agents', agentId);
    const ownGuidelines = new Set(
      (await this.directory.visible(workspaceId, 'guidelines', await this.guidelineCatalog.list(), (g) => g.id)).map((g) => g.id),
    );
    const unreadable = new Set<string>();
    // Guidelines whose tags cannot be read stay in (the turn's screen leaves them out and reports them).
    const guidelines = await this.guidelineCatalog.forAgent(agentId, (g) => {
      if (!ownGuidelines.has(g.id)) return false;
      if (!readableTags(g.tags)) unreadable.add(g.id);
      return readableTags(g.tags);
    });
    const unreadableGuidelines = (await this.guidelineCatalog.list()).filter((g) => unreadable.has(g.id)) as unknown as AgentGuideline[];
    const [variables, terms, capabilities] = await Promise.all([
      this.variableCatalog.list(),
      this.termCatalog.list(),
      this.capabilityCatalog.list(),
    ]);
    return new Snapshot(
      version,
      agent,
      workspaceId,
      [...guidelines, ...unreadableGuidelines],
      scopedOrUnreadable(variables, agentId),
      scopedOrUnreadable(terms, agentId),
      scopedOrUnreadable(capabilities, agentId),
    );
  }
}
