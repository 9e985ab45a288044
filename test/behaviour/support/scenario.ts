import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { createLlmProvider } from '@tenet/llm';
import { RecordedProvider } from './recorded-provider.js';

/** A guideline of a scenario, referred to by its key in relationships and expectations. */
export interface GuidelineSpec {
  condition: string;
  action?: string;
  priority?: number;
  criticality?: 'low' | 'medium' | 'high';
  /** Parlant's `metadata.continuous`: re-applied on every turn its condition holds. */
  continuous?: boolean;
  enabled?: boolean;
  tools?: string[];
  tags?: string[];
}

export interface ScenarioWorld {
  /** Extra fields of the agent (composition_mode, tools, matching, no_match_message, …). */
  agent?: Record<string, unknown>;
  guidelines: Record<string, GuidelineSpec>;
  /** `source`/`target` are guideline keys or `tag:<name>`. */
  relationships?: { source: string; target: string; kind: string }[];
  cannedResponses?: Record<string, { value: string; tags?: string[] }>;
  terms?: { name: string; description: string; synonyms?: string[] }[];
}

/** What one customer message produced, with guideline ids mapped back to the scenario's keys. */
export interface TurnOutcome {
  message: string;
  reply: string;
  status: string;
  matched: string[];
  applied: string[];
  ready: Record<string, unknown>;
}

export interface Scenario {
  title: string;
  given: ScenarioWorld;
  when: string[];
  then: (turns: TurnOutcome[]) => void;
}

interface SessionEvent {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { message?: string; status?: string; data?: Record<string, unknown> };
}

/**
 * Runs given/when/then conversation scenarios against the all-in-one host over its HTTP API, with recorded
 * provider responses (`test/behaviour/recordings/<suite>.json`). `TENET_BEHAVIOUR=record` re-records them
 * from the live provider (offline, or a real model with its key).
 */
export function behaviourSuite(suite: string, scenarios: Scenario[]): void {
  describe(`behaviour: ${suite}`, () => {
    const mode = process.env['TENET_BEHAVIOUR'] === 'record' ? 'record' : 'replay';
    const provider = new RecordedProvider(join(import.meta.dirname, '..', 'recordings', `${suite}.json`), mode, mode === 'record' ? createLlmProvider(process.env) : undefined);
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
      const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };

    for (const scenario of scenarios) {
      it(scenario.title, async () => {
        const { given } = scenario;
        // Deterministic ids keep the recorded requests identical from run to run (a recording is keyed by the task).
        const slug = `${suite}-${scenarios.indexOf(scenario) + 1}`;
        const agent = await call<{ id: string }>('POST', '/agents', { id: slug, name: 'Ada', description: 'A customer-service agent', ...given.agent });
        const ids = new Map<string, string>();
        const keys = new Map<string, string>();
        for (const [key, g] of Object.entries(given.guidelines)) {
          const { continuous, ...fields } = g;
          const created = await call<{ id: string }>('POST', '/guidelines', { id: `${slug}-${key}`, ...fields, ...(continuous ? { metadata: { continuous: true } } : {}), tags: [`agent:${agent.id}`, ...(g.tags ?? [])] });
          ids.set(key, created.id);
          keys.set(created.id, key);
        }
        const tagIds = new Map<string, string>();
        const endpoint = async (ref: string): Promise<Record<string, string>> => {
          if (!ref.startsWith('tag:')) return { guideline: ids.get(ref) ?? ref };
          const name = ref.slice(4);
          if (!tagIds.has(name)) tagIds.set(name, (await call<{ id: string }>('POST', '/tags', { name })).id);
          return { tag: tagIds.get(name)! };
        };
        for (const r of given.relationships ?? []) {
          const source = await endpoint(r.source);
          const target = await endpoint(r.target);
          await call('POST', '/relationships', {
            ...(source['guideline'] ? { source_guideline: source['guideline'] } : { source_tag: source['tag'] }),
            ...(target['guideline'] ? { target_guideline: target['guideline'] } : { target_tag: target['tag'] }),
            kind: r.kind,
          });
        }
        for (const [key, c] of Object.entries(given.cannedResponses ?? {})) await call('POST', '/canned_responses', { id: `${slug}-${key}`, value: c.value, tags: [`agent:${agent.id}`, ...(c.tags ?? [])] });
        for (const t of given.terms ?? []) await call('POST', '/terms', { ...t, tags: [`agent:${agent.id}`] });

        const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
        const turns: TurnOutcome[] = [];
        for (const message of scenario.when) {
          const posted = await call<SessionEvent>('POST', `/sessions/${session.id}/events`, { kind: 'message', source: 'customer', message });
          let events: SessionEvent[] = [];
          while (!events.some((e) => e.correlation_id === posted.correlation_id && ['ready', 'error', 'cancelled'].includes(e.data.status ?? ''))) {
            const next = await call<SessionEvent[]>('GET', `/sessions/${session.id}/events?min_offset=${(events.at(-1)?.offset ?? posted.offset) + 1}&wait_for_data=30`);
            events = [...events, ...next];
          }
          const ours = events.filter((e) => e.correlation_id === posted.correlation_id);
          const end = ours.find((e) => ['ready', 'error', 'cancelled'].includes(e.data.status ?? ''))!;
          if (end.data.status === 'error') throw new Error(`turn failed: ${JSON.stringify(end.data.data)}`);
          const ready = (end.data.data ?? {}) as { matched_guidelines?: { guideline_id: string }[]; applied_guideline_ids?: string[] };
          const toKey = (id: string): string => keys.get(id) ?? id;
          turns.push({
            message,
            reply: ours.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message ?? '',
            status: end.data.status ?? '',
            matched: (ready.matched_guidelines ?? []).map((m) => toKey(m.guideline_id)),
            applied: (ready.applied_guideline_ids ?? []).map(toKey),
            ready: ready as Record<string, unknown>,
          });
        }
        scenario.then(turns);
      });
    }
  });
}
