import { UnprocessableEntity, type ValidationDetail } from '../http/validation.js';

/** Parlant's cursor pagination over resources ordered by creation time, then id. */
export type SortDirection = 'asc' | 'desc';

export interface PageKey {
  creation_utc: string;
  id: string;
}

export interface Page<T> {
  items: T[];
  total_count: number;
  has_more: boolean;
  next_cursor?: string;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  sort: SortDirection;
}

export class InvalidCursorError extends Error {
  readonly code = 'PAGE.INVALID_CURSOR';
}

export const MAX_PAGE = 100;

export const compareKeys =
  (sort: SortDirection) =>
  (a: PageKey, b: PageKey): number => {
    const order = a.creation_utc < b.creation_utc ? -1 : a.creation_utc > b.creation_utc ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return sort === 'asc' ? order : -order;
  };

export function encodeCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify({ creation_utc: key.creation_utc, id: key.id } satisfies PageKey)).toString('base64url');
}

export function decodeCursor(cursor: string): PageKey {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<PageKey>;
    if (typeof parsed.creation_utc === 'string' && typeof parsed.id === 'string')
      return { creation_utc: parsed.creation_utc, id: parsed.id };
  } catch {
    // falls through to the typed error below
  }
  throw new InvalidCursorError('cursor is not a cursor this server issued');
}

/** One page of `all` (any order; sorted here) after the cursor's key. */
export function pageOf<T>(all: readonly T[], keyOf: (item: T) => PageKey, request: PageRequest): Page<T> {
  const compare = compareKeys(request.sort);
  const ordered = [...all].sort((a, b) => compare(keyOf(a), keyOf(b)));
  let start = 0;
  if (request.cursor !== undefined) {
    const after = decodeCursor(request.cursor);
    start = ordered.findIndex((item) => compare(keyOf(item), after) > 0);
    if (start === -1) start = ordered.length;
  }
  const items = ordered.slice(start, start + request.limit);
  const last = items.at(-1);
  const hasMore = start + items.length < ordered.length;
  return { items, total_count: ordered.length, has_more: hasMore, ...(hasMore && last ? { next_cursor: encodeCursor(keyOf(last)) } : {}) };
}

/** Reads `limit`/`sort` as Parlant does; every bad value in one 422. */
export function pageRequestOf(limit: string | undefined, cursor: string | undefined, sort: string | undefined): PageRequest {
  const size = limit === undefined ? MAX_PAGE : Number(limit);
  const problems: ValidationDetail[] = [];
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE)
    problems.push({ loc: ['query', 'limit'], msg: `limit must be an integer 1-${MAX_PAGE}`, type: 'value_error.number' });
  if (sort !== undefined && sort !== 'asc' && sort !== 'desc')
    problems.push({ loc: ['query', 'sort'], msg: 'sort must be one of: asc, desc', type: 'value_error.enum' });
  if (problems.length > 0) throw new UnprocessableEntity(problems);
  return { limit: size, cursor, sort: (sort ?? 'asc') as SortDirection };
}

/** Runs a page read, answering a foreign cursor with a 422 naming it. */
export async function withCursor<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidCursorError)
      throw new UnprocessableEntity([{ loc: ['query', 'cursor'], msg: error.message, type: 'value_error.cursor' }]);
    throw error;
  }
}
