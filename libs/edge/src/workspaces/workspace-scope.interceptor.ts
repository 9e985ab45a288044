import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { from, mergeMap, type Observable } from 'rxjs';
import { callerOf } from '../auth/caller.js';
import { COLLECTION_ROUTES, FILTERED_RESULTS, TRACKED_COLLECTIONS, WorkspaceDirectory } from './workspace-directory.js';

/**
 * The other half of workspace isolation (the auth guard refuses what a request names): what a workspace creates is
 * assigned to it, and what a list shows is only its own (ADR 0018).
 */
@Injectable()
export class WorkspaceScopeInterceptor implements NestInterceptor {
  constructor(private readonly directory: WorkspaceDirectory) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    const caller = callerOf(request);
    const route = (request.route as { path?: string } | undefined)?.path ?? '';
    const segments = route.split('/').filter(Boolean);
    const listed = COLLECTION_ROUTES[route];
    const collection = listed ?? segments[0] ?? '';
    const results = FILTERED_RESULTS[route];
    if (caller && results && request.method === 'GET') {
      const idOf = (hit: unknown): unknown => (hit as Record<string, unknown>)[results.idField];
      const visible = async (body: unknown): Promise<unknown> => {
        if (Array.isArray(body)) return this.directory.visible(caller.workspaceId, results.collection, body, idOf);
        const items = results.itemsField !== undefined ? (body as Record<string, unknown> | undefined)?.[results.itemsField] : undefined;
        return Array.isArray(items)
          ? {
              ...(body as Record<string, unknown>),
              [results.itemsField as string]: await this.directory.visible(caller.workspaceId, results.collection, items, idOf),
            }
          : body;
      };
      return next.handle().pipe(mergeMap((body: unknown) => from(visible(body))));
    }
    if (!caller || (listed === undefined && !TRACKED_COLLECTIONS.has(collection))) return next.handle();
    const workspace = caller.workspaceId;
    return next.handle().pipe(
      mergeMap((body: unknown) =>
        from(
          (async () => {
            const item = body as { id?: unknown; name?: unknown } | undefined;
            if (request.method === 'POST' && listed !== undefined && typeof item?.id === 'string')
              await this.directory.assign(collection, item.id, workspace);
            if (request.method === 'PUT' && segments.length === 2 && listed === undefined) {
              const id = (request.params as Record<string, string | undefined>)[(segments[1] ?? '').slice(1)];
              if (id !== undefined) await this.directory.assign(collection, id, workspace);
            }
            if (request.method === 'GET' && listed !== undefined) {
              // Items are named by `id` (services by `name`).
              const idOf = (i: unknown): unknown => (i as { id?: unknown }).id ?? (i as { name?: unknown }).name;
              if (Array.isArray(body)) return this.directory.visible(workspace, collection, body, idOf);
              const page = body as { items?: unknown[] } | undefined;
              if (page && Array.isArray(page.items))
                return { ...page, items: await this.directory.visible(workspace, collection, page.items, idOf) };
            }
            return body;
          })(),
        ),
      ),
    );
  }
}
