import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Inject, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { notFound } from '../http/validation.js';
import { callerOf, type AuthenticatedCaller } from './caller.js';
import { KeyCreationDto, SessionTokenCreationDto } from './credentials.dto.js';
import { CredentialsRepository, DEFAULT_WORKSPACE, type KeyView } from './credentials.repository.js';

/** The sessions a token may be minted for; the host that serves sessions provides it (the gateway: its sessions repository). */
export const SESSION_DIRECTORY = Symbol('SESSION_DIRECTORY');
export interface SessionDirectory {
  get(sessionId: string): Promise<unknown>;
}

const callerIn = (request: Request): AuthenticatedCaller => {
  const caller = callerOf(request);
  if (!caller) throw new HttpException({ detail: 'no caller' }, HttpStatus.UNAUTHORIZED);
  return caller;
};

/**
 * API keys of the caller's workspace (admin only, by the access policy): create (the key is in this answer only),
 * list with last-used times, revoke. And session tokens: a key mints a short-lived token for one session, so a
 * browser talks to that session without holding a workspace key.
 */
@Controller()
export class KeysHttpController {
  constructor(
    private readonly credentials: CredentialsRepository,
    @Inject(SESSION_DIRECTORY) private readonly sessions: SessionDirectory,
  ) {}

  @Post('keys')
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: KeyCreationDto, @Req() request: Request): Promise<KeyView & { key: string }> {
    const caller = callerIn(request);
    const workspace = body.workspace_id ?? caller.workspaceId;
    if (workspace !== caller.workspaceId && caller.workspaceId !== DEFAULT_WORKSPACE) {
      throw new HttpException(
        {
          detail: [
            {
              loc: ['body', 'workspace_id'],
              msg: 'only an admin of the default workspace may create keys of another workspace',
              type: 'value_error',
            },
          ],
        },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    }
    const { view, key } = await this.credentials.createKey(
      { workspace_id: workspace, name: body.name, role: body.role, ...(caller.kind === 'key' ? { created_by: caller.keyId } : {}) },
      new Date(),
    );
    return { ...view, key };
  }

  @Get('keys')
  list(@Req() request: Request): Promise<KeyView[]> {
    return this.credentials.listKeys(callerIn(request).workspaceId);
  }

  @Get('keys/:keyId')
  async read(@Param('keyId') id: string, @Req() request: Request): Promise<KeyView> {
    const key = await this.credentials.getKey(id);
    if (!key || key.workspace_id !== callerIn(request).workspaceId) throw notFound('key', id);
    return this.credentials.keyView(key);
  }

  /** Revokes the key: it authenticates nothing from now on (its record stays, with the time). */
  @Delete('keys/:keyId')
  async revoke(@Param('keyId') id: string, @Req() request: Request): Promise<KeyView> {
    const revoked = await this.credentials.revoke(callerIn(request).workspaceId, id, new Date());
    if (!revoked) throw notFound('key', id);
    return this.credentials.keyView(revoked);
  }

  @Post('sessions/:sessionId/tokens')
  @HttpCode(HttpStatus.CREATED)
  async mint(
    @Param('sessionId') sessionId: string,
    @Body() body: SessionTokenCreationDto,
    @Req() request: Request,
  ): Promise<{ token: string; session_id: string; expires_at: string }> {
    const caller = callerIn(request);
    if (!(await this.sessions.get(sessionId))) throw notFound('session', sessionId);
    const minted = await this.credentials.mintSessionToken(
      {
        workspace_id: caller.workspaceId,
        session_id: sessionId,
        minted_by: caller.kind === 'key' ? caller.keyId : caller.kind,
        ttlSecs: body.ttl_secs ?? 900,
      },
      new Date(),
    );
    return { ...minted, session_id: sessionId };
  }
}
