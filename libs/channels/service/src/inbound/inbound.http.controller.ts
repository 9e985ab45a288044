import { Controller, Get, HttpCode, HttpException, HttpStatus, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AdapterRegistry } from '../adapters/adapter-registry.js';
import type { ConnectionSecrets, InboundRequest } from '../adapters/channel-adapter.port.js';
import { InboundParseError } from '../adapters/parsing.js';
import { ChannelMetrics } from '../channels.metrics.js';
import type { StoredChannel } from '../channels/channel.dto.js';
import { ChannelsRepository } from '../channels/channels.repository.js';
import { notFound } from '../http-errors.js';
import { InboundService } from './inbound.service.js';
import { widgetCors } from '../widget/widget.http.controller.js';

export const inboundRequest = (request: Request, channelId: string): InboundRequest => ({
  channelId,
  // Signatures are over the bytes the platform sent: the JSON parser keeps them (`rawBody`, see the gateway's request guards).
  rawBody: (request as Request & { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0),
  headers: request.headers,
  body: request.body as unknown,
  query: request.query as Record<string, unknown>,
});

/**
 * The inbound URL of a connection, called by the platform (no Tenet key: public in the access policy). The
 * platform's signature is checked before anything else — a bad or missing one is 401 and nothing is stored or
 * queued; a verified request is queued and answered at once (the platform's deadline, Slack's 3 s, is never at
 * the mercy of a turn).
 */
@Controller('channels')
export class ChannelInboundHttpController {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly adapters: AdapterRegistry,
    private readonly inbound: InboundService,
    private readonly metrics: ChannelMetrics,
  ) {}

  /** The platform's subscription check, for the platforms that have one (WhatsApp's hub.challenge). */
  @Get(':channelId/inbound')
  async handshake(@Param('channelId') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const channel = await this.found(id);
    const answer = this.adapters.of(channel.kind).handshake?.(inboundRequest(request, id), this.credentials(channel));
    if (!answer) throw new HttpException({ detail: `${channel.kind} channels take POST requests only` }, HttpStatus.METHOD_NOT_ALLOWED);
    response.status(answer.status).type('text/plain').send(answer.body);
  }

  @Post(':channelId/inbound')
  @HttpCode(HttpStatus.OK)
  async receive(@Param('channelId') id: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    const receivedAt = Date.now();
    const channel = await this.found(id);
    const adapter = this.adapters.of(channel.kind);
    if (channel.kind === 'widget') widgetCors(channel, request, response);
    const credentials = this.credentials(channel);
    const inbound = inboundRequest(request, id);
    if (!adapter.verify(inbound, credentials, receivedAt)) {
      this.metrics.inbound.inc({ channel: channel.kind, outcome: 'unauthorized' });
      throw new HttpException({ detail: `the request's ${channel.kind} signature is missing or does not verify` }, HttpStatus.UNAUTHORIZED);
    }
    let outcome;
    try {
      outcome = adapter.parse(inbound, channel.settings, credentials);
    } catch (error) {
      if (error instanceof InboundParseError)
        throw new HttpException({ detail: [{ loc: error.loc, msg: error.message, type: 'value_error' }] }, HttpStatus.BAD_REQUEST);
      throw error;
    }
    if (outcome.kind === 'reply') {
      response.status(outcome.status);
      return outcome.body;
    }
    let accepted = 0;
    for (const message of outcome.messages) {
      const queued = await this.inbound.accept(channel, message, receivedAt);
      if (queued) accepted++;
      else this.metrics.inbound.inc({ channel: channel.kind, outcome: 'duplicate' });
    }
    return { ok: true, accepted };
  }

  private async found(id: string): Promise<StoredChannel> {
    const channel = await this.channels.find(id);
    if (!channel) throw notFound('channel', id);
    return channel;
  }

  /** A missing or rotated-away key: the platform retries later; the reason is for the operator, not the caller. */
  private credentials(channel: StoredChannel): ConnectionSecrets {
    return this.channels.credentialsForPublicRequest(channel, 'this channel cannot verify requests right now');
  }
}
