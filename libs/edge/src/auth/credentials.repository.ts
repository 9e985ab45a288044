import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { crudEvolve, ResourceStreams } from '../resources/resource-streams.js';
import type { Role } from './access-policy.js';
import { issueSecret, KEY_PREFIX, SESSION_TOKEN_PREFIX } from './api-keys.js';

export { DEFAULT_WORKSPACE } from '@tenet/contracts';

/** An API key as stored: never the secret, only its hash. */
export interface StoredKey {
  id: string;
  workspace_id: string;
  name: string;
  role: Role;
  hash: string;
  created_at: string;
  created_by?: string;
  revoked_at?: string;
}

/** A session token: one session, short-lived. */
export interface StoredSessionToken {
  id: string;
  workspace_id: string;
  session_id: string;
  hash: string;
  expires_at: string;
  minted_by: string;
}

/** The key as `GET /keys` shows it: no hash, and when it was last used. */
export interface KeyView {
  id: string;
  workspace_id: string;
  name: string;
  role: Role;
  created_at: string;
  revoked: boolean;
  revoked_at?: string;
  last_used_at: string | null;
  /** The first characters of the key, to recognise it. */
  prefix: string;
}

/** last-used times are written at most this often per key (a checkpoint write, not one event per request). */
const LAST_USED_WRITE_MS = 60_000;

/**
 * API keys (`apikey-<id>` streams) and session tokens (`sessiontoken-<id>` streams) in the event log, so every
 * gateway replica verifies them alike; last-used times in named checkpoints (`apikey-used:<id>`).
 */
@Injectable()
export class CredentialsRepository {
  private readonly keys: ResourceStreams<StoredKey>;
  private readonly tokens: ResourceStreams<StoredSessionToken>;
  private readonly lastWritten = new Map<string, number>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    this.keys = new ResourceStreams(store, 'apikey-', 'ApiKey', crudEvolve<StoredKey>('ApiKey'));
    this.tokens = new ResourceStreams(store, 'sessiontoken-', 'SessionToken', crudEvolve<StoredSessionToken>('SessionToken'));
  }

  async createKey(
    input: { workspace_id: string; name: string; role: Role; created_by?: string },
    now: Date,
  ): Promise<{ view: KeyView; key: string }> {
    const issued = issueSecret(KEY_PREFIX);
    const stored: StoredKey = {
      id: issued.id,
      workspace_id: input.workspace_id,
      name: input.name,
      role: input.role,
      hash: issued.hash,
      created_at: now.toISOString(),
      ...(input.created_by ? { created_by: input.created_by } : {}),
    };
    await this.keys.create(issued.id, stored);
    return { view: this.view(stored, null), key: issued.token };
  }

  getKey(id: string): Promise<StoredKey | undefined> {
    return this.keys.get(id);
  }

  async listKeys(workspaceId: string): Promise<KeyView[]> {
    const keys = (await this.keys.list()).filter((k) => k.workspace_id === workspaceId);
    return Promise.all(keys.map(async (k) => this.view(k, await this.lastUsed(k.id))));
  }

  async keyView(key: StoredKey): Promise<KeyView> {
    return this.view(key, await this.lastUsed(key.id));
  }

  /** Revokes a key of the workspace; false when there is none. Revoking twice keeps the first time. */
  async revoke(workspaceId: string, id: string, now: Date): Promise<StoredKey | undefined> {
    const key = await this.keys.get(id);
    if (!key || key.workspace_id !== workspaceId) return undefined;
    if (key.revoked_at) return key;
    return this.keys.update(id, () => ({ revoked_at: now.toISOString() }));
  }

  async mintSessionToken(
    input: { workspace_id: string; session_id: string; minted_by: string; ttlSecs: number },
    now: Date,
  ): Promise<{ token: string; expires_at: string }> {
    const issued = issueSecret(SESSION_TOKEN_PREFIX);
    const expires = new Date(now.getTime() + input.ttlSecs * 1000).toISOString();
    await this.tokens.create(issued.id, {
      id: issued.id,
      workspace_id: input.workspace_id,
      session_id: input.session_id,
      hash: issued.hash,
      expires_at: expires,
      minted_by: input.minted_by,
    });
    return { token: issued.token, expires_at: expires };
  }

  getSessionToken(id: string): Promise<StoredSessionToken | undefined> {
    return this.tokens.get(id);
  }

  /** Records a use; written through at most once a minute per key. */
  async used(id: string, now: number): Promise<void> {
    const last = this.lastWritten.get(id) ?? 0;
    if (now - last < LAST_USED_WRITE_MS) return;
    this.lastWritten.set(id, now);
    await this.store.saveCheckpoint(`apikey-used:${id}`, now);
  }

  private async lastUsed(id: string): Promise<string | null> {
    const at = await this.store.loadCheckpoint(`apikey-used:${id}`);
    return at > 0 ? new Date(at).toISOString() : null;
  }

  private view(key: StoredKey, lastUsed: string | null): KeyView {
    return {
      id: key.id,
      workspace_id: key.workspace_id,
      name: key.name,
      role: key.role,
      created_at: key.created_at,
      revoked: key.revoked_at !== undefined,
      ...(key.revoked_at ? { revoked_at: key.revoked_at } : {}),
      last_used_at: lastUsed,
      prefix: `${KEY_PREFIX}_${key.id.slice(0, 6)}`,
    };
  }
}
