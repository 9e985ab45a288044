import { Controller, Get, Header, Inject, Query } from '@nestjs/common';
import { chatPage } from './chat-page.js';

/** What the page tells a visitor about this process (the all-in-one host provides it). */
export const CHAT_PAGE_OPTIONS = Symbol.for('tenet.chat.page-options');
export interface ChatPageOptions {
  /** Replies come from the offline stand-in, not a language model: the page says so. */
  offlineProvider: boolean;
}

/**
 * A small browser chat against the Parlant-compatible API of this process (same origin, no build step):
 * `/chat?agent_id=` in open mode, `/chat?session_id=<id>#token=<session token>` when API keys are required.
 */
@Controller('chat')
export class ChatHttpController {
  constructor(@Inject(CHAT_PAGE_OPTIONS) private readonly options: ChatPageOptions) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  page(@Query('agent_id') agentId?: string, @Query('session_id') sessionId?: string): string {
    const valid = (id: string | undefined): id is string => typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id);
    return chatPage(valid(agentId) ? agentId : 'demo-support', valid(sessionId) ? sessionId : undefined, {
      offlineProvider: this.options.offlineProvider,
    });
  }
}
