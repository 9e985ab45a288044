/**
 * Who may call what (ADR 0018): one table from route (Express path pattern) and method to the roles
 * allowed, read by the auth guard on every request and rendered into docs/security.md. Pure: no Nest, no I/O.
 *
 * - `admin` manages definitions and keys of its workspace (everything);
 * - `agent-runtime` runs conversations: sessions and their events, customers, and reads the agents;
 * - `read-only` reads (usage, budgets, definitions, sessions) and changes nothing;
 * - a session token (minted by an admin or agent-runtime key for one session, for browsers) reads that session and
 *   its events and posts customer messages to it — nothing else.
 */
export const ROLES = ['admin', 'agent-runtime', 'read-only'] as const;
export type Role = (typeof ROLES)[number];

export type Caller = { kind: 'key'; role: Role } | { kind: 'session-token'; sessionId: string };

/** What a route needs: nothing (`public`), or one of the roles (and, for session tokens, the same session). */
export interface RouteAccess {
  public?: boolean;
  roles: readonly Role[];
  /** A session token for the route's `:sessionId` may call it. */
  sessionToken?: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const ALL: readonly Role[] = ROLES;
const ADMIN: readonly Role[] = ['admin'];
const RUNTIME: readonly Role[] = ['admin', 'agent-runtime'];

/**
 * Paths no key is needed for: probes, metrics, the API description, the chat page's HTML (its API calls need a key or
 * token), channels' inbound URLs, which platforms call with their own signatures instead, and the web widget's script,
 * visitor tokens and conversation, whose credential is the visitor token (ADR 0025).
 */
const PUBLIC_PATHS = [
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/metrics$/,
  /^\/openapi\.json$/,
  /^\/docs(-yaml|\/.*)?$/,
  /^\/chat$/,
  /^\/channels\/:channelId\/(inbound|widget\.js|widget\/visitors|widget\/messages)$/,
];

/** The access a request needs, from its route pattern (`/sessions/:sessionId/events`) and method. */
export function accessFor(method: string, route: string): RouteAccess {
  const m = method.toUpperCase();
  const read = READ_METHODS.has(m);
  if (PUBLIC_PATHS.some((p) => p.test(route))) return { public: true, roles: ALL };
  if (route.startsWith('/keys')) return { roles: ADMIN };
  if (route === '/sessions/:sessionId/tokens') return { roles: RUNTIME };
  if (route === '/sessions/:sessionId' && read) return { roles: ALL, sessionToken: true };
  if (route === '/sessions/:sessionId/events' && (read || m === 'POST')) return { roles: read ? ALL : RUNTIME, sessionToken: true };
  if (route === '/sessions' && m === 'DELETE') return { roles: ADMIN };
  if (route === '/sessions' || route.startsWith('/sessions/') || route === '/customers' || route.startsWith('/customers/'))
    return { roles: read ? ALL : RUNTIME };
  if (read) return { roles: ALL };
  return { roles: ADMIN };
}

/** Whether a caller may make a request: `allowed`, or refused as `unauthenticated` (401) / `forbidden` (403). */
export function authorize(
  access: RouteAccess,
  caller: Caller | undefined,
  params: Record<string, string | undefined>,
): 'allowed' | 'unauthenticated' | 'forbidden' {
  if (access.public) return 'allowed';
  if (!caller) return 'unauthenticated';
  if (caller.kind === 'session-token') return access.sessionToken && params['sessionId'] === caller.sessionId ? 'allowed' : 'forbidden';
  return access.roles.includes(caller.role) ? 'allowed' : 'forbidden';
}

/**
 * What a session token may post to its session's events: customer messages only (docs/security.md). A browser
 * holding one must not speak as staff (`human_agent…`) or write `custom` events the agent's tools may trust.
 * Returns the refusal to answer with (403), or undefined when the event is allowed.
 */
export function sessionTokenPostRefusal(body: unknown): string | undefined {
  const event = (typeof body === 'object' && body !== null ? body : {}) as { kind?: unknown; source?: unknown };
  // A missing kind or source is the body validation's to refuse (422); any event that passes it has both.
  if ((event.kind === undefined || event.kind === 'message') && (event.source === undefined || event.source === 'customer'))
    return undefined;
  return `a session token may post only customer messages (kind "message", source "customer"), not kind ${JSON.stringify(event.kind ?? null)} with source ${JSON.stringify(event.source ?? null)}`;
}
