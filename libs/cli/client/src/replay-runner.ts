import { behaviourDiff, type ReplayedTurn, type TurnDifference, type TurnObservation } from '@tenet/cli-domain';
import { CliError, TenetApi } from './api-client.js';
import { applyPlans, planDefinitions } from './apply.js';
import { Conversation, recordedTurns } from './conversation.js';
import type { LoadedDefinition } from './definition-files.js';
import { startEmbeddedServer } from './embedded-server.js';

/** Which live sessions to replay: `agent:<id>` (its most recent ones) or a comma-separated list of session ids. */
export interface SessionFilter {
  agent?: string;
  ids?: string[];
  limit: number;
}

/** `journey <id> condition "<text>"` for each matched id that is a journey's condition guideline. */
async function conditionNames(api: TenetApi, ids: readonly string[], stable: ReadonlySet<string>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(ids)) {
    if (stable.has(id)) continue;
    const found = await api.find<{ guideline: { condition: string; tags: string[] } }>(`/guidelines/${encodeURIComponent(id)}`);
    const journey = found?.guideline.tags.find((t) => t.startsWith('journey:'));
    if (found && journey) names.set(id, `${journey.replace(':', ' ')} condition "${found.guideline.condition}"`);
  }
  return names;
}

export function parseSessionFilter(text: string, limit: number): SessionFilter {
  if (text.startsWith('agent:')) return { agent: text.slice('agent:'.length), limit };
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new CliError('--sessions takes agent:<agent id> or a comma-separated list of session ids');
  return { ids, limit };
}

export interface ReplayResult {
  differences: TurnDifference[];
  replayedTurns: number;
  sessions: number;
}

/**
 * Re-runs the customer turns of live sessions against changed definitions, isolated: the live server is only read
 * (sessions and their events); the definitions are applied to a scratch all-in-one server the CLI starts and
 * removes, and each session's customer messages are sent there, in order, in a new session.
 */
export async function replay(
  live: TenetApi,
  filter: SessionFilter,
  definitions: readonly LoadedDefinition[],
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<ReplayResult> {
  const sessions = filter.ids
    ? await Promise.all(
        filter.ids.map(
          async (id) => await live.get<{ id: string; agent_id: string; creation_utc: string }>(`/sessions/${encodeURIComponent(id)}`),
        ),
      )
    : (
        (await live.get<{ id: string; agent_id: string; creation_utc: string }[]>(
          `/sessions?agent_id=${encodeURIComponent(filter.agent ?? '')}`,
        )) ?? []
      )
        .sort((a, b) => b.creation_utc.localeCompare(a.creation_utc))
        .slice(0, filter.limit);
  const defined = new Set(definitions.map((d) => d.agentId));
  const missing = [...new Set(sessions.map((s) => s.agent_id))].filter((agent) => !defined.has(agent));
  if (missing.length > 0) throw new CliError(`the definitions do not define agent ${missing.join(', ')} of the selected sessions`);
  const recorded = await Promise.all(sessions.map(async (s) => ({ session: s, turns: await recordedTurns(live, s.id) })));

  log(`starting a scratch Tenet server for ${sessions.length} session(s)…`);
  return withScratchServer(definitions, env, async (api) => {
    const replayed: ReplayedTurn[] = [];
    for (const { session, turns } of recorded) {
      if (turns.length === 0) continue;
      const conversation = await Conversation.open(api, session.agent_id, { title: `replay of ${session.id}` });
      for (const [index, turn] of turns.entries()) {
        replayed.push({ session: session.id, turn: index + 1, recorded: turn, replayed: await conversation.say(turn.customer) });
      }
    }
    // A journey's condition guidelines get server-generated ids, different on the scratch server: compared by text.
    const stable = new Set(definitions.flatMap((d) => d.resources.filter((r) => r.kind === 'guidelines').map((r) => r.key)));
    const [liveNames, scratchNames] = [
      await conditionNames(
        live,
        replayed.flatMap((t) => t.recorded.matched.map((m) => m.id)),
        stable,
      ),
      await conditionNames(
        api,
        replayed.flatMap((t) => t.replayed.matched.map((m) => m.id)),
        stable,
      ),
    ];
    const rename =
      (names: Map<string, string>) =>
      (turn: TurnObservation): TurnObservation => ({ ...turn, matched: turn.matched.map((m) => ({ ...m, id: names.get(m.id) ?? m.id })) });
    const comparable = replayed.map((t) => ({ ...t, recorded: rename(liveNames)(t.recorded), replayed: rename(scratchNames)(t.replayed) }));
    return { differences: behaviourDiff(comparable), replayedTurns: replayed.length, sessions: sessions.length };
  });
}

/**
 * Runs `work` against a scratch all-in-one server holding exactly `definitions`, removed afterwards. The scratch
 * server calls the definitions' tool services for this user, from this machine: their hosts are allowed there even
 * on private addresses (a live server's allow-list guards against its API callers instead).
 */
export async function withScratchServer<T>(
  definitions: readonly LoadedDefinition[],
  env: NodeJS.ProcessEnv,
  work: (api: TenetApi) => Promise<T>,
): Promise<T> {
  const serviceHosts = definitions
    .flatMap((d) => [...d.inputs.services.values()])
    .flatMap((body) =>
      Object.values(body).flatMap((params) =>
        typeof params === 'object' && params ? Object.values(params as Record<string, unknown>) : [],
      ),
    );
  const hosts = [...new Set(serviceHosts.flatMap((url) => (typeof url === 'string' && URL.canParse(url) ? [new URL(url).host] : [])))];
  const allowed = [env['TENET_TOOL_ALLOWED_HOSTS'], ...hosts].filter(Boolean).join(',');
  const scratch = await startEmbeddedServer({ ...env, ...(allowed ? { TENET_TOOL_ALLOWED_HOSTS: allowed } : {}) });
  try {
    const api = new TenetApi({ url: scratch.url });
    await applyPlans(api, await planDefinitions(api, definitions, { prune: false }));
    return await work(api);
  } finally {
    await scratch.close();
  }
}
