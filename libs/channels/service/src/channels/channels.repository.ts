import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { crudEvolve, ResourceStreams, type EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { secretHint, type SecretBox } from '@tenet/secrets';
import type { ConnectionSecrets } from '../adapters/channel-adapter.port.js';
import { CHANNELS_CONFIG, type ChannelsConfig } from '../channels.config.js';
import type { StoredChannel } from './channel.dto.js';

/** The record name a connection's credentials are sealed for: a sealed value moved to another record does not open. */
const owner = (channel: Pick<StoredChannel, 'workspace_id' | 'id'>): string => `channel:${channel.workspace_id}:${channel.id}`;

/** Connections whose opened credentials are kept (least recently used dropped first, then opened again). */
const OPENED_CONNECTIONS = 1_000;

/** TENET_SECRETS_KEY is not set: credentials cannot be stored (nor read back). */
export class SecretsUnavailableError extends Error {
  constructor() {
    super('channel credentials are stored encrypted: set TENET_SECRETS_KEY (64 hex characters or base64 of 32 bytes) to register channels');
  }
}

/** Channel connections, event-sourced like every catalog resource (`channel-<id>`), credentials sealed. */
@Injectable()
export class ChannelsRepository {
  private readonly streams: ResourceStreams<StoredChannel>;
  private readonly opened = new LRUCache<string, ConnectionSecrets>({ max: OPENED_CONNECTIONS });

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
  ) {
    this.streams = new ResourceStreams(store, 'channel-', 'Channel', crudEvolve<StoredChannel>('Channel'));
  }

  seal(
    channel: Pick<StoredChannel, 'workspace_id' | 'id'>,
    credentials: ConnectionSecrets,
  ): { sealed_credentials: string; credential_hints: Record<string, string> } {
    return {
      sealed_credentials: this.box().seal(JSON.stringify(credentials), owner(channel)),
      credential_hints: Object.fromEntries(Object.entries(credentials).map(([field, value]) => [field, secretHint(value)])),
    };
  }

  /**
   * The connection's credentials, opened once per sealed value: every inbound message and delivery needs them, and
   * opening (AES-GCM, a key object per call) cost as much as the rest of the channel's work on a message. Keyed by
   * the sealed text and its owner, so changed credentials are a new entry; shared, hence frozen.
   */
  credentials(channel: StoredChannel): ConnectionSecrets {
    const key = `${owner(channel)}\n${channel.sealed_credentials}`;
    let opened = this.opened.get(key);
    if (opened === undefined) {
      opened = Object.freeze(JSON.parse(this.box().open(channel.sealed_credentials, owner(channel))) as ConnectionSecrets);
      this.opened.set(key, opened);
    }
    return opened;
  }

  /** The credentials for a public request (a platform's, a visitor's): a key problem is the operator's, so a 503 without the reason. */
  credentialsForPublicRequest(channel: StoredChannel, detail: string): ConnectionSecrets {
    try {
      return this.credentials(channel);
    } catch (error) {
      throw new HttpException({ detail }, HttpStatus.SERVICE_UNAVAILABLE, { cause: error });
    }
  }

  create(channel: StoredChannel): Promise<StoredChannel> {
    return this.streams.create(channel.id, channel);
  }

  /** Any workspace's (the inbound route is reached by the platform, which knows only the id). */
  find(id: string): Promise<StoredChannel | undefined> {
    return this.streams.get(id);
  }

  async get(workspaceId: string, id: string): Promise<StoredChannel | undefined> {
    const channel = await this.streams.get(id);
    return channel?.workspace_id === workspaceId ? channel : undefined;
  }

  async list(workspaceId?: string): Promise<StoredChannel[]> {
    return (await this.streams.list()).filter((c) => workspaceId === undefined || c.workspace_id === workspaceId);
  }

  async update(workspaceId: string, id: string, changes: Partial<StoredChannel>): Promise<StoredChannel | undefined> {
    const updated = await this.streams.change(id, (current) =>
      current.workspace_id === workspaceId ? [{ type: 'ChannelUpdated', data: changes }] : [],
    );
    return updated?.workspace_id === workspaceId ? updated : undefined;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (!(await this.get(workspaceId, id))) return false;
    return this.streams.delete(id);
  }

  private box(): SecretBox {
    if (!this.config.secrets) throw new SecretsUnavailableError();
    return this.config.secrets;
  }
}
