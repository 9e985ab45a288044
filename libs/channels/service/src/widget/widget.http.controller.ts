import { Controller, Get, HttpCode, HttpException, HttpStatus, Inject, Options, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { TENET_API_KEY_FIELD } from '../adapters/adapter-registry.js';
import type { ConnectionSecrets } from '../adapters/channel-adapter.port.js';
import { mintVisitorToken, visitorOf } from '../adapters/widget.adapter.js';
import { CHANNELS_CONFIG, type ChannelsConfig } from '../channels.config.js';
import type { StoredChannel } from '../channels/channel.dto.js';
import { ChannelsRepository } from '../channels/channels.repository.js';
import { notFound } from '../http-errors.js';
import { ConversationsRepository } from '../inbound/conversations.repository.js';
import { SessionGatewayClient, type SessionMessage } from '../sessions/session-gateway.client.js';
import { widgetScript } from './widget-script.js';
import { sleep } from '@tenet/messaging';
import { ExcludedEndpointFromOpenApi } from '@tenet/edge';

const AGENT_SOURCES = new Set(['ai_agent', 'human_agent', 'human_agent_on_behalf_of_ai_agent']);
const MAX_WAIT_SECS = 30;

/** CORS for a widget channel: its `allowed_origins` (any origin when unset; the visitor token, not a cookie, is the credential). */
export function widgetCors(channel: StoredChannel, request: Request, response: Response): void {
  const allowed = (channel.settings['allowed_origins'] ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const origin = request.headers.origin;
  response.vary('Origin');
  if (allowed.length === 0) response.setHeader('access-control-allow-origin', '*');
  else if (origin !== undefined && allowed.includes(origin)) response.setHeader('access-control-allow-origin', origin);
  else return;
  response.setHeader('access-control-allow-headers', 'authorization, content-type');
  response.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  response.setHeader('access-control-max-age', '600');
}

/**
 * The web widget's routes (public in the access policy; the visitor token is the credential): the script, a token
 * per visitor, and the visitor's conversation by long-poll — the whole history from offset 0, so a reload or a
 * reconnect shows everything said. Messages are posted to the channel's inbound URL like any platform's.
 */
@Controller('channels')
export class WidgetHttpController {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly conversations: ConversationsRepository,
    @Inject(SessionGatewayClient) private readonly gateway: SessionGatewayClient,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
  ) {}

  @Get(':channelId/widget.js')
  async script(@Param('channelId') id: string, @Res() response: Response): Promise<void> {
    const channel = await this.widget(id);
    response
      .status(200)
      .type('application/javascript')
      .setHeader('cache-control', 'public, max-age=300')
      .send(widgetScript(channel.settings['title'] ?? 'Chat with us'));
  }

  // A browser's CORS preflight, not an API operation: left out of the OpenAPI description.
  @ExcludedEndpointFromOpenApi()
  @Options([':channelId/widget/visitors', ':channelId/widget/messages', ':channelId/inbound'])
  @HttpCode(HttpStatus.NO_CONTENT)
  async preflight(@Param('channelId') id: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    widgetCors(await this.widget(id), request, response);
  }

  @Post(':channelId/widget/visitors')
  @HttpCode(HttpStatus.CREATED)
  async visitor(
    @Param('channelId') id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ visitor_token: string }> {
    const channel = await this.widget(id);
    widgetCors(channel, request, response);
    return { visitor_token: mintVisitorToken(this.secrets(channel)['widget_secret'] ?? '', channel.id).token };
  }

  /** Messages of the visitor's conversation from `after` (a session offset), waiting up to `wait` seconds for one. */
  @Get(':channelId/widget/messages')
  async messages(
    @Param('channelId') id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Query('after') after?: string,
    @Query('wait') wait?: string,
  ): Promise<{ messages: Array<{ id: string; from: 'visitor' | 'agent'; text: string; at: string }>; next_offset: number }> {
    const channel = await this.widget(id);
    widgetCors(channel, request, response);
    const credentials = this.secrets(channel);
    const visitor = visitorOf(
      credentials['widget_secret'] ?? '',
      channel.id,
      /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1],
    );
    if (!visitor)
      throw new HttpException({ detail: 'a visitor token is required: Authorization: Bearer <visitor_token>' }, HttpStatus.UNAUTHORIZED);
    const from = Number(after ?? 0);
    const waitSecs = Number(wait ?? 0);
    if (!Number.isInteger(from) || from < 0)
      throw new HttpException(
        { detail: [{ loc: ['query', 'after'], msg: 'after must be an integer ≥ 0', type: 'value_error' }] },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    if (!Number.isInteger(waitSecs) || waitSecs < 0 || waitSecs > MAX_WAIT_SECS)
      throw new HttpException(
        { detail: [{ loc: ['query', 'wait'], msg: `wait must be an integer from 0 to ${MAX_WAIT_SECS}`, type: 'value_error' }] },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    // A visitor who leaves (closed tab, reload) ends its long-poll here too, not 25 s later.
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    // Before the first message has opened the session there is nothing to read yet: wait for it (bounded).
    const deadline = Date.now() + waitSecs * 1000;
    let sessionId = await this.conversations.sessionOfPeer(channel.id, visitor);
    while (!sessionId && Date.now() < deadline && !gone.signal.aborted) {
      await sleep(250);
      sessionId = await this.conversations.sessionOfPeer(channel.id, visitor);
    }
    if (!sessionId) return { messages: [], next_offset: from };
    const remaining = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    let events: SessionMessage[];
    try {
      events = await this.gateway.messages(sessionId, from, remaining, credentials[TENET_API_KEY_FIELD], gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return { messages: [], next_offset: from };
      throw error;
    }
    return {
      messages: events
        .filter((e) => e.source === 'customer' || AGENT_SOURCES.has(e.source))
        .map((e) => ({
          id: e.id,
          from: e.source === 'customer' ? ('visitor' as const) : ('agent' as const),
          text: e.data.message ?? '',
          at: e.creation_utc,
        })),
      next_offset: (events.at(-1)?.offset ?? from - 1) + 1,
    };
  }

  private async widget(id: string): Promise<StoredChannel> {
    const channel = await this.channels.find(id);
    if (!channel || channel.kind !== 'widget') throw notFound('widget channel', id);
    return channel;
  }

  private secrets(channel: StoredChannel): ConnectionSecrets {
    return this.channels.credentialsForPublicRequest(channel, 'this channel cannot serve visitors right now');
  }
}
