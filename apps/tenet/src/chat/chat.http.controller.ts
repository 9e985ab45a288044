import { Controller, Get, Header, Query } from '@nestjs/common';
import { chatPage } from './chat-page.js';

/** A small browser chat against the Parlant-compatible API of this process (same origin, no build step). */
@Controller('chat')
export class ChatHttpController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  page(@Query('agent_id') agentId?: string): string {
    return chatPage(agentId && /^[A-Za-z0-9_-]{1,64}$/.test(agentId) ? agentId : 'demo-support');
  }
}
