import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { AdapterRegistry, TENET_API_KEY_FIELD } from '../adapters/adapter-registry.js';
import type { ConnectionSecrets, FieldProblem } from '../adapters/channel-adapter.port.js';
import { CHANNELS_CONFIG, type ChannelsConfig } from '../channels.config.js';
import { DeliveryService, DELIVERY_STATUSES, type DeliveryView } from '../delivery/delivery.service.js';
import { notFound, workspaceOf } from '../http-errors.js';
import { ChannelCreationDto, ChannelUpdateDto, type ChannelView, type StoredChannel } from './channel.dto.js';
import { ChannelsRepository, SecretsUnavailableError } from './channels.repository.js';

const unprocessable = (problems: FieldProblem[]): HttpException =>
  new HttpException(
    { detail: problems.map((p) => ({ loc: ['body', ...p.loc], msg: p.msg, type: 'value_error' })) },
    HttpStatus.UNPROCESSABLE_ENTITY,
  );

/** Every value a string of 1-4096 characters, and only the fields the kind knows. */
function stringsOnly(
  value: Record<string, unknown> | undefined,
  field: 'credentials' | 'settings',
  allowed: readonly string[],
): { values: Record<string, string>; problems: FieldProblem[] } {
  const values: Record<string, string> = {};
  const problems: FieldProblem[] = [];
  for (const [key, v] of Object.entries(value ?? {})) {
    if (!allowed.includes(key))
      problems.push({ loc: [field, key], msg: `${key} is not a ${field} field of this kind (allowed: ${allowed.join(', ') || 'none'})` });
    else if (typeof v !== 'string' || v.length === 0 || v.length > 4096)
      problems.push({ loc: [field, key], msg: `${key} must be a string of 1-4096 characters` });
    else values[key] = v;
  }
  return { values, problems };
}

/**
 * `/channels`: platform connections of the caller's workspace. Credentials are sealed with TENET_SECRETS_KEY before
 * they are stored and are never returned (a hint per field instead); each connection has its inbound URL.
 */
@Controller('channels')
export class ChannelsHttpController {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly adapters: AdapterRegistry,
    private readonly deliveries: DeliveryService,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
  ) {}

  @Get()
  async list(@Req() request: Request): Promise<ChannelView[]> {
    return (await this.channels.list(workspaceOf(request))).map((c) => this.view(c, request));
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: ChannelCreationDto, @Req() request: Request): Promise<ChannelView> {
    const adapter = this.adapters.of(body.kind);
    const credentials = stringsOnly(body.credentials, 'credentials', [
      ...adapter.requiredCredentials,
      ...adapter.optionalCredentials,
      TENET_API_KEY_FIELD,
    ]);
    credentials.values = { ...adapter.defaultCredentials?.(), ...credentials.values };
    const settings = stringsOnly(body.settings, 'settings', adapter.allowedSettings);
    const problems = [...credentials.problems, ...settings.problems];
    if (problems.length === 0)
      problems.push(
        ...this.missing(adapter.requiredCredentials, credentials.values),
        ...adapter.check(settings.values, credentials.values),
      );
    if (problems.length === 0) problems.push(...((await adapter.checkTargets?.(settings.values)) ?? []));
    if (problems.length > 0) throw unprocessable(problems);
    const id = `ch_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const workspace = workspaceOf(request);
    const stored: StoredChannel = {
      id,
      workspace_id: workspace,
      kind: body.kind,
      name: body.name,
      account_id: body.account_id ?? adapter.accountOf?.(settings.values, credentials.values) ?? null,
      settings: settings.values,
      ...this.sealed({ id, workspace_id: workspace }, credentials.values),
      creation_utc: new Date().toISOString(),
    };
    return this.view(await this.channels.create(stored), request);
  }

  @Get(':channelId')
  async get(@Param('channelId') id: string, @Req() request: Request): Promise<ChannelView> {
    return this.view(await this.found(workspaceOf(request), id), request);
  }

  @Patch(':channelId')
  async update(@Param('channelId') id: string, @Body() body: ChannelUpdateDto, @Req() request: Request): Promise<ChannelView> {
    const workspace = workspaceOf(request);
    const current = await this.found(workspace, id);
    const adapter = this.adapters.of(current.kind);
    const credentials =
      body.credentials === undefined
        ? undefined
        : stringsOnly(body.credentials, 'credentials', [
            ...adapter.requiredCredentials,
            ...adapter.optionalCredentials,
            TENET_API_KEY_FIELD,
          ]);
    const settings = body.settings === undefined ? undefined : stringsOnly(body.settings, 'settings', adapter.allowedSettings);
    const problems = [...(credentials?.problems ?? []), ...(settings?.problems ?? [])];
    if (problems.length === 0) {
      // The connection as it would be after the change must be valid as a whole, exactly as on creation.
      const nextCredentials = credentials?.values ?? this.opened(current);
      if (credentials) problems.push(...this.missing(adapter.requiredCredentials, credentials.values));
      if (problems.length === 0) problems.push(...adapter.check(settings?.values ?? current.settings, nextCredentials));
      if (problems.length === 0 && settings) problems.push(...((await adapter.checkTargets?.(settings.values)) ?? []));
    }
    if (problems.length > 0) throw unprocessable(problems);
    const changes: Partial<StoredChannel> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.account_id !== undefined) changes.account_id = body.account_id;
    if (settings) changes.settings = settings.values;
    if (credentials) {
      Object.assign(changes, this.sealed(current, credentials.values));
      if (body.account_id === undefined)
        changes.account_id = adapter.accountOf?.(settings?.values ?? current.settings, credentials.values) ?? current.account_id;
    }
    const updated = await this.channels.update(workspace, id, changes);
    if (!updated) throw notFound('channel', id);
    return this.view(updated, request);
  }

  @Delete(':channelId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async delete(@Param('channelId') id: string, @Req() request: Request): Promise<void> {
    if (!(await this.channels.delete(workspaceOf(request), id))) throw notFound('channel', id);
  }

  /** Agent messages on their way to this channel's conversations; `?status=failed` lists the ones given up on. */
  @Get(':channelId/deliveries')
  async listDeliveries(@Param('channelId') id: string, @Req() request: Request, @Query('status') status?: string): Promise<DeliveryView[]> {
    await this.found(workspaceOf(request), id);
    if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
      throw new HttpException(
        { detail: [{ loc: ['query', 'status'], msg: `status must be one of: ${DELIVERY_STATUSES.join(', ')}`, type: 'value_error' }] },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    }
    return this.deliveries.list(id, status as DeliveryView['status'] | undefined);
  }

  /** Queues a failed delivery again (it keeps its place: later messages of the conversation are not held back by it). */
  @Post(':channelId/deliveries/:eventId/retry')
  @HttpCode(HttpStatus.ACCEPTED)
  async retryDelivery(@Param('channelId') id: string, @Param('eventId') eventId: string, @Req() request: Request): Promise<DeliveryView> {
    await this.found(workspaceOf(request), id);
    const retried = await this.deliveries.retry(id, eventId);
    if (retried === undefined) throw notFound('failed delivery', eventId);
    return retried;
  }

  private async found(workspace: string, id: string): Promise<StoredChannel> {
    const channel = await this.channels.get(workspace, id);
    if (!channel) throw notFound('channel', id);
    return channel;
  }

  private missing(required: readonly string[], values: Record<string, string>): FieldProblem[] {
    return required
      .filter((field) => values[field] === undefined)
      .map((field) => ({ loc: ['credentials', field], msg: `${field} is required` }));
  }

  private sealed(
    channel: Pick<StoredChannel, 'id' | 'workspace_id'>,
    credentials: ConnectionSecrets,
  ): Pick<StoredChannel, 'sealed_credentials' | 'credential_hints'> {
    try {
      return this.channels.seal(channel, credentials);
    } catch (error) {
      if (error instanceof SecretsUnavailableError) throw new HttpException({ detail: error.message }, HttpStatus.SERVICE_UNAVAILABLE);
      throw error;
    }
  }

  private opened(channel: StoredChannel): ConnectionSecrets {
    try {
      return this.channels.credentials(channel);
    } catch (error) {
      if (error instanceof SecretsUnavailableError) throw new HttpException({ detail: error.message }, HttpStatus.SERVICE_UNAVAILABLE);
      throw error;
    }
  }

  private view(channel: StoredChannel, request: Request): ChannelView {
    return {
      id: channel.id,
      kind: channel.kind,
      name: channel.name,
      account_id: channel.account_id,
      settings: channel.settings,
      credentials: Object.fromEntries(
        Object.entries(channel.credential_hints).map(([field, hint]) => [field, { set: true as const, hint }]),
      ),
      inbound_url: `${this.config.publicUrl ?? `${request.protocol}://${request.get('host') ?? '127.0.0.1'}`}/channels/${channel.id}/inbound`,
      creation_utc: channel.creation_utc,
    };
  }
}
