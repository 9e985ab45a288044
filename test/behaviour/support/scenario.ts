import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { createLlmProvider } from '@tenet/llm';
import { JourneyTimers } from '@tenet/journeys-client';
import { RecordedProvider } from './recorded-provider.js';

/** A guideline of a scenario, referred to by its key in relationships, steps and expectations. */
export interface GuidelineSpec {
  condition: string;
  action?: string;
  priority?: number;
  criticality?: 'low' | 'medium' | 'high';
  /** Parlant's `metadata.continuous`: re-applied on every turn its condition holds. */
  continuous?: boolean;
  enabled?: boolean;
  tools?: string[];
  /** Tag names; the harness creates each tag once per scenario and uses its id. */
  tags?: string[];
  /** Names of context variables that must have a value for the guideline to be a candidate. */
  required_context?: string[];
  composition_mode?: 'fluid' | 'canned_fluid' | 'composited_canned' | 'strict_canned';
}

/** A context variable of the scenario's agent (`POST /context-variables`, tagged `agent:<id>`). */
export interface ContextVariableSpec {
  data_type?: 'String' | 'Number' | 'Boolean';
  default_value?: unknown;
  /** The value for the scenario's customer (`PUT /context-variables/<id>/<customer id>`). */
  value?: unknown;
  /** The value for every customer (`PUT /context-variables/<id>/DEFAULT`). */
  everyone?: unknown;
}

/**
 * A journey of the scenario's agent (docs/data-model.md#journeys): `conditions` are keys of condition guidelines in `given.guidelines`
 * (created with the scenario's ids, so provider requests stay the same on every run), attached with Parlant's
 * `PATCH /journeys/{id}` `conditions.add`.
 */
export interface JourneySpec {
  title: string;
  conditions: string[];
  steps: {
    id: string;
    name?: string;
    kind: 'chat' | 'tool' | 'fork' | 'final';
    instruction?: string;
    tool?: string;
    required_context?: string[];
  }[];
  transitions: { from: string; to: string; condition?: string; priority?: number }[];
  initial_step: string;
  priority?: number;
}

export interface ScenarioWorld {
  /** Extra fields of the agent (composition_mode, tools, matching, no_match_message, …). */
  agent?: Record<string, unknown>;
  guidelines: Record<string, GuidelineSpec>;
  /** `source`/`target` are guideline keys or `tag:<name>`. */
  relationships?: {
    source: string;
    target: string;
    kind: 'entailment' | 'priority' | 'dependency' | 'dependency_any' | 'disambiguation';
  }[];
  cannedResponses?: Record<string, { value: string; tags?: string[] }>;
  terms?: { name: string; description: string; synonyms?: string[] }[];
  /** Context variables by name. */
  context?: Record<string, ContextVariableSpec>;
  /** Extra fields of the session (`config`, …). */
  session?: Record<string, unknown>;
  /** Journeys by key (the journey's id is the scenario's slug and the key). */
  journeys?: Record<string, JourneySpec>;
}

/** Something that happens between customer messages. */
export type WorldChange =
  /** Sets context-variable values for the scenario's customer. */
  | { setContext: Record<string, unknown> }
  /** Deletes the customer's values of these context variables. */
  | { clearContext: string[] }
  /** `PATCH /agents/<id>`. */
  | { patchAgent: Record<string, unknown> }
  /** `PATCH /guidelines/<id>` by key. */
  | { patchGuidelines: Record<string, Record<string, unknown>> }
  /** A journey timer fires `afterSecs` from now (the abandon or expiry timeout, without waiting it out). */
  | { journeyTimer: { journey: string; timer: 'abandon' | 'expire'; afterSecs: number } };

/** A customer message, or a change to the world before the next one. */
export type Step = string | WorldChange;

/** A relationship's effect in this turn, with guideline ids mapped back to keys. */
export interface ResolutionStep {
  kind: string;
  effect: string;
  guideline: string;
  because: string;
}

/** What one customer message produced, with guideline and canned-response ids mapped back to the scenario's keys. */
export interface TurnOutcome {
  message: string;
  reply: string;
  status: string;
  /** The top matches (after relationships, priority/criticality order, top N), in order. */
  matched: string[];
  /** Every match above the threshold, in ranked order, before top N cut any. */
  ranked: string[];
  /** The matches this reply applied (Parlant's applied-guideline tracking). */
  applied: string[];
  /** The guidelines the reply says it followed. */
  cited: string[];
  /** The key of the canned response the reply is, if it is one. */
  cannedResponse: string | undefined;
  /** Set when the reply asks the customer to choose: the observation that fired, and the candidates. */
  disambiguation: { source: string; candidates: string[] } | undefined;
  steps: ResolutionStep[];
  /** Glossary term names the matcher gave the model. */
  glossary: string[];
  /** Each top match's reasoning and `matched_context`, by key. */
  details: Record<string, { score: number; reasoning: string; matched_context: Record<string, unknown>; previously_applied: boolean }>;
  ready: Record<string, unknown>;
  /** Journeys whose conditions matched this turn, by key. */
  matchedJourneys: string[];
  /** Each journey's state after the turn, by key: `status@step` (e.g. `Active@ask_reason`). */
  journeys: Record<string, string>;
}

export interface Scenario {
  title: string;
  given: ScenarioWorld;
  when: Step[];
  /** Called with one outcome per customer message, in order. */
  then: (turns: TurnOutcome[]) => void;
}

/** A scenario about engine behaviour believed wrong: it is expected to FAIL its assertions (see `behaviourSuite`). */
export interface KnownIssue extends Scenario {
  /** What is wrong, for the report and for whoever fixes it. */
  issue: string;
}

interface SessionEvent {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { message?: string; status?: string; data?: Record<string, unknown> };
}

interface ReadyMatch {
  guideline_id: string;
  relevance_score: number;
  reasoning: string;
  matched_context?: Record<string, unknown>;
  previously_applied?: boolean;
}

interface ReadyData {
  matched_guidelines?: { guideline_id: string }[];
  applied_guideline_ids?: string[];
  cited_guideline_ids?: string[];
  canned_response_id?: string;
  guideline_match_result?: {
    matches?: ReadyMatch[];
    top_matches?: ReadyMatch[];
    disambiguation?: { source_id: string; candidates: string[] };
  };
  provenance?: {
    relationships?: { steps?: { kind: string; effect: string; guideline_id: string; because: string }[] };
    glossary?: string[];
  };
}

const AGENT_TAG = (agentId: string): string => `agent:${agentId}`;
/** Guideline, canned-response and context-variable keys become part of ids (`[A-Za-z0-9_-]`, ≤ 64 with the slug). */
const KEY = /^[A-Za-z0-9_]{1,24}$/;

/**
 * The scenario's stable slug: the suite and a hash of the title. Every id the engine may put into a provider
 * request (guideline ids in matching and composition, canned-response ids in composition) is derived from it,
 * so a scenario asks the same questions on every run, whatever other scenarios are added, removed or reordered.
 * Ids the gateway generates (relationships, tags, terms, sessions) never reach a provider request's task.
 */
export const scenarioSlug = (suite: string, title: string): string =>
  `${suite}-${createHash('sha256').update(title).digest('hex').slice(0, 8)}`;

/**
 * Runs given/when/then conversation scenarios against the all-in-one host over its HTTP API, with recorded
 * provider responses (`test/behaviour/recordings/<suite>.json`). `TENET_BEHAVIOUR=record` re-records them
 * from the live provider (offline, or a real model with its key).
 *
 * `knownIssues` run too, inverted: each passes while its `then` fails an assertion (the issue is still there),
 * fails when its assertions all pass (the issue is fixed: move it to the scenarios), and fails on any other
 * error (a missing recording, a failed turn), so a known issue cannot hide a broken harness.
 */
export function behaviourSuite(suite: string, scenarios: Scenario[], knownIssues: KnownIssue[] = []): void {
  const titles = [...scenarios, ...knownIssues].map((s) => s.title);
  const duplicate = titles.find((t, i) => titles.indexOf(t) !== i);
  if (duplicate) throw new Error(`behaviour suite ${suite}: two scenarios are titled "${duplicate}"`);

  describe(`behaviour: ${suite}`, () => {
    const mode = process.env['TENET_BEHAVIOUR'] === 'record' ? 'record' : 'replay';
    const provider = new RecordedProvider(
      join(import.meta.dirname, '..', 'recordings', `${suite}.json`),
      mode,
      mode === 'record' ? createLlmProvider(process.env) : undefined,
    );
    let dir: string;
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `tenet-behaviour-${suite}-`));
      ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }, { provider }));
    });

    afterAll(async () => {
      provider.save();
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
      return (response.status === 204 ? undefined : await response.json()) as T;
    };

    /**
     * Builds the world, plays the steps and returns one outcome per customer message. Everything is scoped to the
     * scenario's agent, except that context-variable names are unique across the gateway: the scenario's variables
     * are deleted when it ends (`cleanup`), so that another scenario of the suite may use the same names.
     */
    const play = async (scenario: Scenario, cleanup: (() => Promise<unknown>)[]): Promise<TurnOutcome[]> => {
      const { given } = scenario;
      const slug = scenarioSlug(suite, scenario.title);
      for (const key of [
        ...Object.keys(given.guidelines),
        ...Object.keys(given.cannedResponses ?? {}),
        ...Object.keys(given.context ?? {}),
      ]) {
        if (!KEY.test(key)) throw new Error(`scenario "${scenario.title}": key "${key}" must match ${String(KEY)}`);
      }
      const agent = await call<{ id: string }>('POST', '/agents', {
        id: slug,
        name: 'Ada',
        description: 'A customer-service agent',
        ...given.agent,
      });
      const customer = await call<{ id: string }>('POST', '/customers', { id: `${slug}-customer`, name: 'Sam' });

      // Context variables first: a guideline's required_context must name defined variables.
      const variables = new Map<string, string>();
      for (const [name, v] of Object.entries(given.context ?? {})) {
        const created = await call<{ id: string }>('POST', '/context-variables', {
          id: `${slug}-${name}`,
          name,
          ...(v.data_type ? { data_type: v.data_type } : {}),
          ...(v.default_value !== undefined ? { default_value: v.default_value } : {}),
          tags: [AGENT_TAG(agent.id)],
        });
        variables.set(name, created.id);
        cleanup.push(() => call('DELETE', `/context-variables/${created.id}`));
        if (v.everyone !== undefined) await call('PUT', `/context-variables/${created.id}/DEFAULT`, { data: v.everyone });
        if (v.value !== undefined) await call('PUT', `/context-variables/${created.id}/${customer.id}`, { data: v.value });
      }
      const tagIds = new Map<string, string>();
      const tagId = async (name: string): Promise<string> => {
        if (!tagIds.has(name)) tagIds.set(name, (await call<{ id: string }>('POST', '/tags', { name: `${slug}-${name}` })).id);
        return tagIds.get(name)!;
      };
      /** One after the other, so that a name listed twice makes one tag. */
      const tagIdsOf = async (names: readonly string[] = []): Promise<string[]> => {
        const out: string[] = [];
        for (const name of names) out.push(await tagId(name));
        return out;
      };
      const ids = new Map<string, string>();
      const keys = new Map<string, string>();
      for (const [key, g] of Object.entries(given.guidelines)) {
        const { continuous, tags, ...fields } = g;
        const tagList = [AGENT_TAG(agent.id), ...(await tagIdsOf(tags))];
        const created = await call<{ id: string }>('POST', '/guidelines', {
          id: `${slug}-${key}`,
          ...fields,
          ...(continuous ? { metadata: { continuous: true } } : {}),
          tags: tagList,
        });
        ids.set(key, created.id);
        keys.set(created.id, key);
      }
      const endpoint = async (ref: string): Promise<{ guideline: string } | { tag: string }> => {
        if (ref.startsWith('tag:')) return { tag: await tagId(ref.slice(4)) };
        const id = ids.get(ref);
        if (!id) throw new Error(`scenario "${scenario.title}": relationship endpoint "${ref}" is no guideline key`);
        return { guideline: id };
      };
      for (const r of given.relationships ?? []) {
        const source = await endpoint(r.source);
        const target = await endpoint(r.target);
        await call('POST', '/relationships', {
          ...('guideline' in source ? { source_guideline: source.guideline } : { source_tag: source.tag }),
          ...('guideline' in target ? { target_guideline: target.guideline } : { target_tag: target.tag }),
          kind: r.kind,
        });
      }
      const cannedKeys = new Map<string, string>();
      for (const [key, c] of Object.entries(given.cannedResponses ?? {})) {
        const created = await call<{ id: string }>('POST', '/canned_responses', {
          id: `${slug}-${key}`,
          value: c.value,
          tags: [AGENT_TAG(agent.id), ...(await tagIdsOf(c.tags))],
        });
        cannedKeys.set(created.id, key);
      }
      for (const t of given.terms ?? []) await call('POST', '/terms', { ...t, tags: [AGENT_TAG(agent.id)] });
      const journeyKeys = new Map<string, string>();
      for (const [key, j] of Object.entries(given.journeys ?? {})) {
        const { conditions, steps, ...rest } = j;
        const id = `${slug}-${key}`;
        await call('POST', '/journeys', {
          id,
          description: j.title,
          conditions: [],
          ...rest,
          steps: steps.map((st) => ({ name: st.id.replace(/_/g, ' '), ...st })),
          tags: [AGENT_TAG(agent.id)],
        });
        const missing = conditions.filter((c) => !ids.has(c));
        if (missing.length > 0)
          throw new Error(`scenario "${scenario.title}": journey ${key} conditions ${missing.join(', ')} are no guideline keys`);
        await call('PATCH', `/journeys/${id}`, { conditions: { add: conditions.map((c) => ids.get(c)) } });
        journeyKeys.set(id, key);
      }
      const variable = (name: string): string => {
        const id = variables.get(name);
        if (!id) throw new Error(`scenario "${scenario.title}": no context variable "${name}" in given.context`);
        return id;
      };

      const change = async (step: WorldChange): Promise<void> => {
        if ('setContext' in step)
          for (const [name, data] of Object.entries(step.setContext))
            await call('PUT', `/context-variables/${variable(name)}/${customer.id}`, { data });
        else if ('clearContext' in step)
          for (const name of step.clearContext) await call('DELETE', `/context-variables/${variable(name)}/${customer.id}`);
        else if ('patchAgent' in step) await call('PATCH', `/agents/${agent.id}`, step.patchAgent);
        else if ('journeyTimer' in step) {
          const { journey, timer, afterSecs } = step.journeyTimer;
          await app
            .get(JourneyTimers)
            .fire({ sessionId: session.id, journeyId: `${slug}-${journey}`, timer }, Date.now() + afterSecs * 1000);
        } else
          for (const [key, patch] of Object.entries(step.patchGuidelines)) await call('PATCH', `/guidelines/${ids.get(key) ?? key}`, patch);
      };

      const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id, customer_id: customer.id, ...given.session });
      const toKey = (id: string): string => keys.get(id) ?? id;
      const turns: TurnOutcome[] = [];
      for (const step of scenario.when) {
        if (typeof step !== 'string') {
          await change(step);
          continue;
        }
        const posted = await call<SessionEvent>('POST', `/sessions/${session.id}/events`, {
          kind: 'message',
          source: 'customer',
          message: step,
        });
        const isEnd = (e: SessionEvent): boolean =>
          e.correlation_id === posted.correlation_id && ['ready', 'error', 'cancelled'].includes(e.data.status ?? '');
        let events: SessionEvent[] = [];
        while (!events.some(isEnd)) {
          const next = await call<SessionEvent[]>(
            'GET',
            `/sessions/${session.id}/events?min_offset=${(events.at(-1)?.offset ?? posted.offset) + 1}&wait_for_data=30`,
          );
          events = [...events, ...next];
        }
        const ours = events.filter((e) => e.correlation_id === posted.correlation_id);
        const end = ours.find(isEnd)!;
        if (end.data.status !== 'ready')
          throw new Error(`turn for "${step}" ended ${end.data.status ?? '?'}: ${JSON.stringify(end.data.data)}`);
        const ready = (end.data.data ?? {}) as ReadyData;
        const result = ready.guideline_match_result ?? {};
        turns.push({
          message: step,
          reply: ours.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message ?? '',
          status: end.data.status,
          matched: (ready.matched_guidelines ?? []).map((m) => toKey(m.guideline_id)),
          ranked: (result.matches ?? []).map((m) => toKey(m.guideline_id)),
          applied: (ready.applied_guideline_ids ?? []).map(toKey),
          cited: (ready.cited_guideline_ids ?? []).map(toKey),
          cannedResponse: ready.canned_response_id ? (cannedKeys.get(ready.canned_response_id) ?? ready.canned_response_id) : undefined,
          disambiguation: result.disambiguation
            ? { source: toKey(result.disambiguation.source_id), candidates: result.disambiguation.candidates.map(toKey) }
            : undefined,
          steps: (ready.provenance?.relationships?.steps ?? []).map((s) => ({
            kind: s.kind,
            effect: s.effect,
            guideline: toKey(s.guideline_id),
            because: s.because,
          })),
          glossary: ready.provenance?.glossary ?? [],
          details: Object.fromEntries(
            (result.top_matches ?? []).map((m) => [
              toKey(m.guideline_id),
              {
                score: m.relevance_score,
                reasoning: m.reasoning,
                matched_context: m.matched_context ?? {},
                previously_applied: m.previously_applied === true,
              },
            ]),
          ),
          ready: ready as Record<string, unknown>,
          matchedJourneys: ((ready as { matched_journeys?: string[] }).matched_journeys ?? []).map((id) => journeyKeys.get(id) ?? id),
          journeys: Object.fromEntries(
            ((ready as { journey_states?: { journey_id: string; status: string; step_id?: string }[] }).journey_states ?? []).map((st) => [
              journeyKeys.get(st.journey_id) ?? st.journey_id,
              `${st.status}@${st.step_id ?? ''}`,
            ]),
          ),
        });
      }
      return turns;
    };

    /** Plays the scenario with its answers attributed to it, and checks that replay asked for every recorded answer. */
    const run = async (scenario: Scenario): Promise<TurnOutcome[]> => {
      const slug = scenarioSlug(suite, scenario.title);
      provider.beginScenario(slug);
      const cleanup: (() => Promise<unknown>)[] = [];
      let turns: TurnOutcome[];
      try {
        turns = await play(scenario, cleanup);
      } catch (error) {
        provider.endScenario(slug);
        throw error;
      } finally {
        for (const undo of cleanup) await undo();
      }
      const unused = provider.endScenario(slug);
      if (unused.length > 0) {
        throw new Error(
          `scenario "${scenario.title}" did not ask for ${unused.length} recorded answer(s) (${unused.join(', ')}): the engine made other provider calls than when recorded`,
        );
      }
      return turns;
    };

    /** `TENET_BEHAVIOUR_DEBUG=1` prints each turn's outcome (without the raw `ready` data), for writing scenarios. */
    const debug = (title: string, turns: TurnOutcome[]): void => {
      if (!process.env['TENET_BEHAVIOUR_DEBUG']) return;
      process.stdout.write(`\n### ${title}\n${turns.map(({ ready: _ready, ...t }) => JSON.stringify(t)).join('\n')}\n`);
    };

    for (const scenario of scenarios) {
      it(scenario.title, async () => {
        const turns = await run(scenario);
        debug(scenario.title, turns);
        scenario.then(turns);
      });
    }

    for (const known of knownIssues) {
      it(`known issue: ${known.title}`, async () => {
        const turns = await run(known);
        debug(known.title, turns);
        try {
          known.then(turns);
        } catch (error) {
          if ((error as { matcherResult?: unknown }).matcherResult !== undefined) return; // still wrong, as documented
          throw error;
        }
        throw new Error(
          `known issue "${known.title}" now behaves as its scenario expects (${known.issue}): move it to the suite's scenarios`,
        );
      });
    }
  });
}
