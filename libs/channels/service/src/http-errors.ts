import { HttpException, HttpStatus } from '@nestjs/common';
import type { Request } from 'express';

/** The gateway's error shape: `{ detail: [{ loc, msg, type }] }` for a broken rule, `{ detail: "…" }` otherwise. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error'): HttpException =>
  new HttpException({ detail: [{ loc, msg, type }] }, HttpStatus.UNPROCESSABLE_ENTITY);
export const notFound = (what: string, id: string): HttpException =>
  new HttpException({ detail: `${what} ${id} not found` }, HttpStatus.NOT_FOUND);

/**
 * The caller's workspace as the edge guard established it (ADR 0018: the guard attaches the caller under this
 * symbol). A host without the guard, or open mode, is the `default` workspace.
 */
export function workspaceOf(request: Request): string {
  const caller = (request as unknown as Record<symbol, { workspaceId?: string } | undefined>)[Symbol.for('tenet.auth.caller')];
  return caller?.workspaceId ?? 'default';
}
