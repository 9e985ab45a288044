import { Catch, type ArgumentsHost, HttpException, HttpStatus, Logger, type ExceptionFilter } from '@nestjs/common';
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
    reply.status(status).json(body);
  }

  private shape(exception: unknown): { status: number; body: { detail: unknown } } {
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'object' && response !== null && 'detail' in response) return { status, body: response as { detail: unknown } };
      // Health checks (terminus) answer with their own documented shape: {status, info, error, details}.
      if (typeof response === 'object' && response !== null && 'status' in response && 'details' in response) return { status, body: response as unknown as { detail: unknown } };
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
      this.logger.error(`a write was refused because the event log's disk is full: ${exception instanceof Error ? exception.message : String(exception)}`);
      return { status: INSUFFICIENT_STORAGE, body: { detail: "Insufficient storage: the server's disk is full, so nothing of this request was stored. Try again later." } };
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: { detail: 'Internal server error' } };
  }
}

const malformedJson = (reason: string | undefined): { status: number; body: { detail: unknown } } => ({
  status: HttpStatus.BAD_REQUEST,
  body: { detail: [{ loc: ['body'], msg: `the request body is not valid JSON${reason ? `: ${reason}` : ''}`, type: 'json_invalid' }] },
});
