import { HttpException, HttpStatus, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import type { Request, Response } from 'express';
import {
  CLAIMED_BY_PUT,
  COLLECTION_ROUTES,
  referencedItem,
  REFERENCE_STEPS,
  TRACKED_COLLECTIONS,
  valuesAt,
  WorkspaceDirectory,
} from '../workspaces/workspace-directory.js';
import { accessFor, authorize, sessionTokenPostRefusal, type Caller } from './access-policy.js';
import { parseToken, sameSecret, secretMatches } from './api-keys.js';
import { AccessSettings } from './access-settings.js';
import type { AuthConfig } from './auth-config.js';
import { setCaller, type AuthenticatedCaller } from './caller.js';
import { CredentialsRepository, DEFAULT_WORKSPACE } from './credentials.repository.js';
import { RateLimits } from './rate-limits.js';
import { notFound } from '../http/validation.js';

const unauthenticated = (detail: string): HttpException => new HttpException({ detail }, HttpStatus.UNAUTHORIZED);

/**
 * Every HTTP route of the gateway passes here (a global guard): the caller is authenticated from
 * `Authorization: Bearer <key or session token>`, authorized by the access policy (role, or the token's session),
 * rate-limited, and confined to its workspace — a resource of another workspace, named in the path or referenced in
 * the body or query, is a 404 as if it did not exist (ADR 0018).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly directory: WorkspaceDirectory,
    private readonly rateLimits: RateLimits,
    private readonly settings: AccessSettings,
    @Inject(PLATFORM_CONFIG) private readonly platform: PlatformConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const route = (request.route as { path?: string } | undefined)?.path ?? request.path;
    const access = accessFor(request.method, route);
    const config = this.settings.of(request).auth;
    if (access.public) return true;
    const caller =
      (await this.authenticate(request, config)) ??
      (config.enforced ? undefined : ({ kind: 'open', role: 'admin', workspaceId: DEFAULT_WORKSPACE } as const));
    const asPolicy: Caller | undefined =
      caller &&
      (caller.kind === 'session-token' ? { kind: 'session-token', sessionId: caller.sessionId } : { kind: 'key', role: caller.role });
    const params = request.params as Record<string, string | undefined>;
    const decision = authorize(access, asPolicy, params);
    if (decision === 'unauthenticated') {
      context.switchToHttp().getResponse<Response>().setHeader('www-authenticate', 'Bearer');
      throw unauthenticated('an API key or session token is required: Authorization: Bearer <key>');
    }
    if (!caller) throw unauthenticated('an API key or session token is required');
    if (decision === 'forbidden') {
      const who = caller.kind === 'session-token' ? `a session token (for session ${caller.sessionId})` : `role ${caller.role}`;
      throw new HttpException({ detail: `${who} may not ${request.method} ${route}` }, HttpStatus.FORBIDDEN);
    }
    if (caller.kind === 'session-token' && request.method === 'POST') {
      const refusal = sessionTokenPostRefusal(request.body);
      if (refusal !== undefined) throw new HttpException({ detail: refusal }, HttpStatus.FORBIDDEN);
    }
    await this.rateLimits.take(caller, this.settings.of(request).rateLimits, context.switchToHttp().getResponse<Response>());
    setCaller(request, caller);
    await this.confine(
      caller.workspaceId,
      route,
      params,
      request.body as unknown,
      request.query as Record<string, unknown>,
      request.method,
    );
    return true;
  }

  /** The caller behind the Authorization header; undefined without one; 401 for a wrong, revoked or expired one. */
  private async authenticate(request: Request, config: AuthConfig): Promise<AuthenticatedCaller | undefined> {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw unauthenticated('Authorization must be "Bearer <key>"');
    const presented = match[1];
    if (config.bootstrapKey !== undefined && sameSecret(presented, config.bootstrapKey))
      return { kind: 'key', role: 'admin', workspaceId: DEFAULT_WORKSPACE, keyId: 'bootstrap' };
    const parsed = parseToken(presented);
    if (!parsed) throw unauthenticated('the API key is not valid');
    if (parsed.prefix === 'tnt') {
      const key = await this.credentials.getKey(parsed.id);
      if (!key || !secretMatches(parsed.secret, key.hash)) throw unauthenticated('the API key is not valid');
      if (key.revoked_at) throw unauthenticated('the API key was revoked');
      await this.credentials.used(key.id, Date.now());
      return { kind: 'key', role: key.role, workspaceId: key.workspace_id, keyId: key.id };
    }
    const token = await this.credentials.getSessionToken(parsed.id);
    if (!token || !secretMatches(parsed.secret, token.hash)) throw unauthenticated('the session token is not valid');
    if (Date.parse(token.expires_at) <= Date.now()) throw unauthenticated('the session token has expired');
    return { kind: 'session-token', sessionId: token.session_id, workspaceId: token.workspace_id, tokenId: token.id };
  }

  /** 404 for any resource of another workspace the request names: path parameters, body and query references. */
  private async confine(
    workspaceId: string,
    route: string,
    params: Record<string, string | undefined>,
    body: unknown,
    query: Record<string, unknown>,
    method: string,
  ): Promise<void> {
    for (const { param, collection, last } of namedItems(route)) {
      const id = params[param];
      if (id === undefined) continue;
      const recorded = await this.directory.recordedOwner(collection, id);
      if (method === 'PUT' && recorded === undefined && last && CLAIMED_BY_PUT.has(collection)) continue;
      // A PUT may create what it names: only the default workspace may claim a name nobody has claimed (ADR 0018).
      if (method === 'PUT' && recorded === undefined && last && workspaceId !== DEFAULT_WORKSPACE) throw notFoundIn(collection, id);
      if ((recorded ?? DEFAULT_WORKSPACE) !== workspaceId) throw notFoundIn(collection, id);
    }
    // A customer's memory (served by the memory store, which knows no customers) is of an existing customer only.
    if (route.startsWith('/customers/:customerId/')) {
      const customerId = params['customerId'];
      if (customerId !== undefined && !(await this.directory.exists('customers', customerId))) throw notFoundIn('customers', customerId);
    }
    // A POST that names its item's id (a knowledge source replaced by id) must not reach another workspace's item.
    const created = method === 'POST' ? COLLECTION_ROUTES[route] : undefined;
    const chosenId = (body as { id?: unknown } | undefined)?.id;
    if (created !== undefined && typeof chosenId === 'string') {
      const recorded = await this.directory.recordedOwner(created, chosenId);
      if (recorded !== undefined && recorded !== workspaceId) throw notFoundIn(created, chosenId);
    }
    if (created === 'knowledge-sources') await this.checkKnowledgeTags(body);
    const sources = [body, query];
    for (const [steps, kind] of REFERENCE_STEPS) {
      for (const source of sources) {
        for (const named of valuesAt(source, steps)) {
          const { collection, id } = referencedItem(kind, named);
          if ((await this.directory.ownerOf(collection, id)) !== workspaceId) throw notFoundIn(collection, id);
        }
      }
    }
    // An untagged knowledge source applies to every agent on the index, whatever its workspace: only `default` (the
    // operator's, where pre-workspace sources are) may create one.
    if (created === 'knowledge-sources' && workspaceId !== DEFAULT_WORKSPACE) {
      const agentIds = (body as { agent_ids?: unknown } | undefined)?.agent_ids;
      if (!Array.isArray(agentIds) || agentIds.length === 0) {
        throw new HttpException(
          {
            detail: [
              {
                loc: ['body', 'agent_ids'],
                msg: `agent_ids must name at least one agent of workspace ${workspaceId}: an untagged knowledge source would apply to every workspace's agents`,
                type: 'value_error',
              },
            ],
          },
          HttpStatus.UNPROCESSABLE_ENTITY,
        );
      }
    }
  }

  /**
   * Each agent tag of a knowledge source is a partition of the vector index: at most `maxAgentIdsPerSource` of them
   * (422 naming the limit, checked before any lookup), each an existing agent of the caller's workspace — in the
   * open mode too — else 404 like another workspace's agent (ADR 0023: tags were a way to fill the disk).
   */
  private async checkKnowledgeTags(body: unknown): Promise<void> {
    const agentIds = (body as { agent_ids?: unknown } | undefined)?.agent_ids;
    if (!Array.isArray(agentIds)) return;
    const limit = this.platform.knowledgeLimits.maxAgentIdsPerSource;
    if (agentIds.length > limit) {
      throw new HttpException(
        {
          detail: [
            {
              loc: ['body', 'agent_ids'],
              msg: `agent_ids may name at most ${limit} agents per source (TENET_KNOWLEDGE_MAX_AGENT_IDS), got ${agentIds.length}`,
              type: 'value_error.limit',
            },
          ],
        },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    }
    for (const id of new Set(agentIds)) {
      if (typeof id === 'string' && !(await this.directory.exists('agents', id))) throw notFoundIn('agents', id);
    }
  }
}

const notFoundIn = (collection: string, id: string): HttpException => notFound(collection.replace(/s$/, ''), id);

/** A path parameter of a route that names an item of a tracked collection; `last`: the route's final segment. */
interface NamedItem {
  param: string;
  collection: string;
  last: boolean;
}

/** Routes are the application's own patterns (a few hundred at most): each is planned once. */
const ROUTE_PLANS_MAX = 1_000;
const routePlans = new Map<string, readonly NamedItem[]>();

/** The items a route names in its path: `/agents/:agentId/...` names an agent, by its `agentId` parameter. */
function namedItems(route: string): readonly NamedItem[] {
  const known = routePlans.get(route);
  if (known !== undefined) return known;
  const segments = route.split('/').filter(Boolean);
  const plan: NamedItem[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] ?? '';
    const previous = segments[i - 1] ?? '';
    const collection =
      COLLECTION_ROUTES[`/${segments.slice(0, i).join('/')}`] ?? (TRACKED_COLLECTIONS.has(previous) ? previous : undefined);
    if (segment.startsWith(':') && collection !== undefined)
      plan.push({ param: segment.slice(1), collection, last: i === segments.length - 1 });
  }
  if (routePlans.size < ROUTE_PLANS_MAX) routePlans.set(route, plan);
  return plan;
}
