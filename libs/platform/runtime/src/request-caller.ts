/**
 * Where the auth guard of a host (EdgeAccessModule, ADR 0018) leaves the authenticated caller on the HTTP request:
 * a process-wide symbol, so feature modules served behind that guard (the memory store's knowledge REST) can read
 * the caller's workspace without depending on the gateway.
 */
export const REQUEST_CALLER = Symbol.for('tenet.auth.caller');

/** The workspace of the request's caller; undefined when no guard ran (a host without EdgeAccessModule). */
export const callerWorkspaceOf = (request: object): string | undefined => {
  const caller = (request as Record<symbol, { workspaceId?: unknown } | undefined>)[REQUEST_CALLER];
  return typeof caller?.workspaceId === 'string' ? caller.workspaceId : undefined;
};
