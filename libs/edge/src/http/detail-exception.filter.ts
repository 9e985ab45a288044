import { Catch, type ArgumentsHost, HttpException, HttpStatus, Logger, NotFoundException, type ExceptionFilter } from '@nestjs/common';
import { isStorageFull } from '@tenet/event-store';

/** WebDAV's 507 Insufficient Storage (RFC 4918): the request was fine, the server cannot store it now. */
const INSUFFICIENT_STORAGE = 507;

interface HttpReply {
  headersSent?: boolean;
  status(code: number): HttpReply;
  json(body: unknown): void;
}

/** Body-parser errors carry their HTTP status and a `type` such as `entity.parse.failed`. */
interface ParserError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
}

/**
 * One error shape for every HTTP error: `{ detail }`, as Parlant (FastAPI) answers and as Tenet's validation
 * errors already are. Nest's default body (`{ statusCode, message, error }`) — unknown routes, methods, and
 * malformed JSON bodies — is rewritten; a body that already has `detail` passes unchanged. Malformed JSON keeps
 * its 400 status, with FastAPI's detail list naming the body (`type: json_invalid`). Anything unexpected is a 500 whose detail reveals nothing.
 */
@Catch()
export class DetailExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(DetailExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const reply = host.switchToHttp().getResponse<HttpReply>();
    if (reply.headersSent) return;
    const { status, body } = this.shape(exception);
    const request = host.switchToHttp().getRequest<{ params?: unknown; query?: unknown; body?: unknown }>();
    reply.status(status).json(status < 500 ? withoutEchoes(body, request) : body);
  }

  private shape(exception: unknown): { status: number; body: { detail: unknown } } {
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'object' && response !== null && 'detail' in response)
        return { status, body: response as { detail: unknown } };
      // Health checks (terminus) answer with their own documented shape: {status, info, error, details}.
      if (typeof response === 'object' && response !== null && 'status' in response && 'details' in response)
        return { status, body: response as unknown as { detail: unknown } };
      // An unknown route: Nest's "Cannot GET <path>", or FastAPI's (Parlant's) "Not Found" when the path holds
      // anything an error must not echo (`..`, markup).
      if (exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(exception.message) && !routeEchoable(exception.message))
        return { status, body: { detail: 'Not Found' } };
      const cause = exception.cause as ParserError | undefined;
      if (status === HttpStatus.BAD_REQUEST && cause?.type === 'entity.parse.failed') return malformedJson(cause.message);
      const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
      return { status, body: { detail: Array.isArray(message) ? message.join('; ') : String(message ?? exception.message) } };
    }
    const parser = exception as ParserError | undefined;
    if (parser?.type === 'entity.parse.failed') return malformedJson(parser.message);
    const status = parser?.status ?? parser?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return { status, body: { detail: parser?.message ?? 'Bad request' } };
    if (isStorageFull(exception)) {
      this.logger.error(
        `a write was refused because the event log's disk is full: ${exception instanceof Error ? exception.message : String(exception)}`,
      );
      return {
        status: INSUFFICIENT_STORAGE,
        body: { detail: "Insufficient storage: the server's disk is full, so nothing of this request was stored. Try again later." },
      };
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: { detail: 'Internal server error' } };
  }
}

const malformedJson = (reason: string | undefined): { status: number; body: { detail: unknown } } => ({
  status: HttpStatus.BAD_REQUEST,
  body: { detail: [{ loc: ['body'], msg: `the request body is not valid JSON${reason ? `: ${reason}` : ''}`, type: 'json_invalid' }] },
});

/**
 * Whether an error message may repeat a value the caller sent: a plain token (letters, digits, `_-.:@`, at most
 * 128, no `..`) may — that is how "agent abc not found" names what was not found. Anything else (a path such as
 * `../../etc/passwd`, markup, a long text) is not reflected back (docs/reliability.md#bad-input-malformed-requests).
 */
export const echoable = (value: string): boolean => /^[A-Za-z0-9_.:@-]{1,128}$/.test(value) && !value.includes('..');

const NOT_SHOWN = '(value not shown)';

/** "Cannot GET /a/b?x=1": whether each path segment (decoded) and the query may be repeated. */
function routeEchoable(message: string): boolean {
  const target = message.replace(/^Cannot [A-Z]+ /, '');
  const [path = '', query] = target.split('?');
  if (query !== undefined) return false;
  return path.split('/').every((segment) => {
    try {
      return segment === '' || echoable(decodeURIComponent(segment));
    } catch {
      return false;
    }
  });
}
/** Request values looked at: enough for any error message, bounded for a 2 MB knowledge upload. */
const MAX_VALUES = 2_000;

/** The request's strings (params, query, body values and keys) an error must not repeat, longest first. */
function unechoable(request: { params?: unknown; query?: unknown; body?: unknown }): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (found.size >= MAX_VALUES || depth > 40) return;
    if (typeof node === 'string') {
      if (!echoable(node) && node.length >= 3) found.add(node);
    } else if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        visit(key, depth + 1);
        visit(value, depth + 1);
      }
    }
  };
  visit([request.params, request.query, request.body], 0);
  return [...found].sort((a, b) => b.length - a.length);
}

/** The error body with every unechoable request value replaced (in messages, and in `loc` items naming a sent key). */
function withoutEchoes(body: { detail: unknown }, request: { params?: unknown; query?: unknown; body?: unknown }): { detail: unknown } {
  const hidden = unechoable(request);
  if (hidden.length === 0) return body;
  const scrub = (node: unknown): unknown => {
    if (typeof node === 'string')
      return hidden.reduce((text, value) => (text.includes(value) ? text.split(value).join(NOT_SHOWN) : text), node);
    if (Array.isArray(node)) return node.map(scrub);
    if (typeof node === 'object' && node !== null)
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, scrub(value)]));
    return node;
  };
  return scrub(body) as { detail: unknown };
}
