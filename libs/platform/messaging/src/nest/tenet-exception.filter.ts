import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';

/**
 * Lets handler errors reach TenetTransport as they were thrown. Nest's default RPC filter turns every error
 * that is not an `RpcException` into `{ status: 'error', message: 'Internal server error' }`, which loses
 * what the transport needs: a `NonRetryableMessageError` must `term` (not be retried), and an error's
 * `code` (`'SESSION.NOT_FOUND'`) must travel back to a requester as `RemoteHandlerError.remoteCode`.
 * Register it once per microservice (`app.useGlobalFilters(new TenetExceptionFilter())` on a standalone
 * microservice) or with `@UseFilters(TenetExceptionFilter)` on RPC controllers of a hybrid app, where handlers
 * are bound at `connectMicroservice` time and later global filters are ignored.
 * An `RpcException` passes on its payload (`new RpcException({ message, code })`).
 */
@Catch()
export class TenetExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    const error = exception instanceof RpcException ? exception.getError() : exception;
    return throwError(() => error);
  }
}
