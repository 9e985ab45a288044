import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConcurrencyError, StreamFoldCache, type EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';

/** Which platform conversation a session is: written once, when the conversation's first message opens the session. */
export interface Conversation {
  session_id: string;
  session_key: string;
  connection_id: string;
  workspace_id: string;
  agent_id: string;
  customer_id: string;
  /** Where replies go on the platform (the adapter's address: chat id, thread, conversation id). */
  address: Record<string, string | number>;
}

const STREAM = (sessionId: string): string => `channelconv-${sessionId}`;
/** The session a session key talks in now: its first, or the successor of one that ended (`channelkey-<sha256 of the key>`). */
const KEY_STREAM = (sessionKey: string): string => `channelkey-${createHash('sha256').update(sessionKey).digest('hex').slice(0, 40)}`;
/** The session a platform peer of a connection talks in now (`channelpeer-<sha256 of connection and peer>`). */
const PEER_STREAM = (connectionId: string, peer: string): string =>
  `channelpeer-${createHash('sha256').update(`${connectionId}\n${peer}`).digest('hex').slice(0, 40)}`;

@Injectable()
export class ConversationsRepository {
  private readonly conversations: StreamFoldCache<Conversation>;
  private readonly successors: StreamFoldCache<string>;
  private readonly peers: StreamFoldCache<string>;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {
    this.conversations = new StreamFoldCache(
      store,
      (current, event) => current ?? (event.type === 'ConversationOpened' ? (event.data as Conversation) : undefined),
    );
    this.successors = new StreamFoldCache(store, (current, event) =>
      event.type === 'ConversationMovedOn' ? (event.data as { session_id: string }).session_id : current,
    );
    this.peers = new StreamFoldCache(store, (current, event) =>
      event.type === 'PeerSessionSet' ? (event.data as { session_id: string }).session_id : current,
    );
  }

  /** The session of a connection's peer (the widget's visitor reads its conversation by it). */
  async sessionOfPeer(connectionId: string, peer: string): Promise<string | undefined> {
    return (await this.peers.read(PEER_STREAM(connectionId, peer))).state;
  }

  async setPeerSession(connectionId: string, peer: string, sessionId: string): Promise<void> {
    if ((await this.sessionOfPeer(connectionId, peer)) === sessionId) return;
    await this.store.append(PEER_STREAM(connectionId, peer), [{ type: 'PeerSessionSet', data: { session_id: sessionId } }]);
  }

  /** The conversation's current session, once one was opened (a read of the log: no call to the session gateway). */
  async currentSession(sessionKey: string): Promise<string | undefined> {
    return (await this.successors.read(KEY_STREAM(sessionKey))).state;
  }

  async setCurrentSession(sessionKey: string, sessionId: string): Promise<void> {
    if ((await this.currentSession(sessionKey)) === sessionId) return;
    await this.store.append(KEY_STREAM(sessionKey), [{ type: 'ConversationMovedOn', data: { session_id: sessionId } }]);
  }

  async of(sessionId: string): Promise<Conversation | undefined> {
    return (await this.conversations.read(STREAM(sessionId))).state;
  }

  /** Idempotent: the first record of a session wins (every later message of the conversation finds it). */
  async open(conversation: Conversation): Promise<void> {
    if (await this.of(conversation.session_id)) return;
    try {
      await this.store.append(STREAM(conversation.session_id), [{ type: 'ConversationOpened', data: conversation }], {
        expectedVersion: 'no_stream',
      });
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }
}
