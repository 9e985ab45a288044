import { JOURNEY_TRANSITION_EVENT_TYPE } from '@tenet/contracts';
import { foldJourney, type JourneyEvent } from '@tenet/journeys-domain';
import { recordedJourneys } from '@tenet/catalog-data-access';

/** One turn's LLM calls as the `ready` status records them. */
interface ReadyUsage {
  input_tokens?: number;
  output_tokens?: number;
  cost_estimate_usd?: number;
}

/** What a session has seen so far, from its event stream: the single-session view's activity fields (Tenet extensions). */
export interface SessionActivity {
  last_activity_at: string;
  message_count: number;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number; cost_estimate_usd: number; turns: number };
  /** The journey the session is in now, if any: where it is, since when, and the steps it went through. */
  active_journey?: {
    journey_id: string;
    status: string;
    step?: string;
    started_at: string;
    updated_at: string;
    history: { step_id: string; entered_at: string; exited_at?: string }[];
    context: Record<string, unknown>;
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Folds a session's stream (messages, statuses, journey records; deleted events already left out) into its activity:
 * visible messages, the tokens its turns' `ready` statuses recorded, and the journey most recently moved that is still
 * active or abandoned (a customer may resume it).
 */
export function sessionActivity(
  events: readonly { type: string; data: unknown; recordedAt: string }[],
  createdAt: string,
): SessionActivity {
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_estimate_usd: 0, turns: 0 };
  let messages = 0;
  let lastActivity = createdAt;
  for (const event of events) {
    if (event.type === 'message') {
      messages++;
      lastActivity = event.recordedAt;
    }
    const status = (event.data as { data?: { status?: string; data?: { usage?: ReadyUsage[] } } }).data;
    if (event.type === 'status' && status?.status === 'ready') {
      usage.turns++;
      for (const call of status.data?.usage ?? []) {
        usage.input_tokens += call.input_tokens ?? 0;
        usage.output_tokens += call.output_tokens ?? 0;
        usage.cost_estimate_usd += call.cost_estimate_usd ?? 0;
      }
    }
  }
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  usage.cost_estimate_usd = Math.round(usage.cost_estimate_usd * 1e6) / 1e6;
  const journey = activeJourney(events.filter((e) => e.type === JOURNEY_TRANSITION_EVENT_TYPE));
  return { last_activity_at: lastActivity, message_count: messages, usage, ...(journey ? { active_journey: journey } : {}) };
}

function activeJourney(records: readonly { type: string; data: unknown }[]): SessionActivity['active_journey'] {
  let latest: SessionActivity['active_journey'];
  let latestAt = -1;
  for (const [journeyId, recorded] of Object.entries(recordedJourneys(records))) {
    const state = foldJourney(recorded as unknown as JourneyEvent[]);
    if (state.status === 'NotStarted' || (state.status !== 'Active' && state.status !== 'Abandoned') || state.lastTransitionAt < latestAt)
      continue;
    latestAt = state.lastTransitionAt;
    latest = {
      journey_id: journeyId,
      status: state.status,
      ...(state.currentStep !== undefined ? { step: state.currentStep } : {}),
      started_at: iso(state.startedAt),
      updated_at: iso(state.lastTransitionAt),
      history: state.history.map((entry) => ({
        step_id: entry.step_id,
        entered_at: iso(entry.entered_at),
        ...(entry.exited_at !== undefined ? { exited_at: iso(entry.exited_at) } : {}),
      })),
      context: state.context,
    };
  }
  return latest;
}
