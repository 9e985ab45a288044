import { HttpException, HttpStatus } from '@nestjs/common';
import { MemoryDomainError } from '@tenet/memory-domain';

/** The gateway's error shape: `{ detail: [{ loc, msg, type }] }` for a broken rule, `{ detail: "…" }` otherwise. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error'): HttpException =>
  new HttpException({ detail: [{ loc, msg, type }] }, HttpStatus.UNPROCESSABLE_ENTITY);
export const notFound = (what: string, id: string): HttpException =>
  new HttpException({ detail: `${what} ${id} not found` }, HttpStatus.NOT_FOUND);

/** Runs a use case and maps the memory domain's typed errors to HTTP once. */
export async function memoryCall<T>(run: () => Promise<T>, field: (string | number)[] = ['body']): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof MemoryDomainError)) throw error;
    if (error.code === 'MEMORY.FACT_NOT_FOUND') throw new HttpException({ detail: error.message }, HttpStatus.NOT_FOUND);
    const named = /^(\w+) /.exec(error.message)?.[1];
    throw invalid(named && field.length === 1 ? [...field, named] : field, error.message, error.code);
  }
}
