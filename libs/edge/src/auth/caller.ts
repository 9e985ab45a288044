import type { Request } from 'express';
import { REQUEST_CALLER } from '@tenet/platform-runtime';
import type { Role } from './access-policy.js';

/** Who is calling, as the auth guard established it; attached to the request. */
export type AuthenticatedCaller =
  | { kind: 'key'; role: Role; workspaceId: string; keyId: string }
  | { kind: 'session-token'; sessionId: string; workspaceId: string; tokenId: string }
  /** Open mode (auth off) without a key: acts as an admin of the `default` workspace. */
  | { kind: 'open'; role: 'admin'; workspaceId: string };

const CALLER = REQUEST_CALLER;

export const callerOf = (request: Request): AuthenticatedCaller | undefined =>
  (request as unknown as Record<symbol, AuthenticatedCaller | undefined>)[CALLER];

export const setCaller = (request: Request, caller: AuthenticatedCaller): void => {
  (request as unknown as Record<symbol, AuthenticatedCaller>)[CALLER] = caller;
};
