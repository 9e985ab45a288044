import type { SessionConfig } from '@tenet/session-domain';
import type { SessionActivity } from './session-activity.js';

/** Parlant's modes plus Tenet's `paused`: only `auto` lets the agent reply. */
export const SESSION_MODES = ['auto', 'manual', 'paused'] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

export interface SessionView {
  id: string;
  agent_id: string;
  customer_id: string;
  creation_utc: string;
  title?: string;
  mode: SessionMode;
  consumption_offsets: { client: number };
  metadata: Record<string, unknown>;
  labels: string[];
  /** Tenet extensions (docs/data-model.md#sessions): lifecycle state, and status (active, completed, abandoned, expired). */
  state: string;
  status: string;
  config: SessionConfig;
  expires_at?: string;
}

/** `GET /sessions/{id}`: the view with what the session has seen so far (read from its stream; lists leave it out). */
export type SessionDetailView = SessionView & SessionActivity;
