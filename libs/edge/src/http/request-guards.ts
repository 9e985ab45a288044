import { json, type NextFunction as Next, type Request, type Response } from 'express';

/**
 * The request guards every gateway host mounts before Nest's own middleware: each refuses a class of bad
 * input with a 4xx naming the rule, before any handler (or parser) spends effort on it.
 */
/** Deeper JSON than any Parlant resource needs; far below what makes validation or JSON.parse expensive. */
export const MAX_JSON_DEPTH = 32;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const refuse = (res: Response, status: number, detail: string): void => void res.status(status).json({ detail });

/** How deep `[`/`{` nest in raw JSON text, counted outside strings, without parsing it. */
export function jsonDepthExceeds(raw: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

class TooDeep extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
}

const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** Bodies are JSON only: a form post, text or XML is refused (415) instead of being read as an empty update. */
function jsonBodiesOnly(req: Request, res: Response, next: Next): void {
  if (!BODY_METHODS.has(req.method ?? '') || !hasBody(req)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type)) return next();
  refuse(res, 415, `request bodies must be JSON (Content-Type: application/json); got ${type ? `"${type}"` : 'no Content-Type'}`);
}

const jsonOptions = {
  type: ['application/json', 'application/*+json'],
  verify: (req: Request & { rawBody?: Buffer }, _res: unknown, raw: Buffer) => {
    if (jsonDepthExceeds(raw, MAX_JSON_DEPTH))
      throw new TooDeep(`JSON body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
    // Kept for the routes that verify a signature over the exact bytes (channel inbound URLs, ADR 0025); Nest's name.
    req.rawBody = raw;
  },
};
/** Every body: express' default 100 kB. */
const parseJson = json(jsonOptions);
/**
 * A knowledge source's body carries a whole document (`content` up to 2,000,000 characters, a PDF in base64): the
 * one route with a larger limit, so that its DTO rule is what refuses a too-long document (422 naming content).
 */
export const KNOWLEDGE_SOURCE_BODY_LIMIT = '2200kb';
const parseKnowledgeSource = json({ ...jsonOptions, limit: KNOWLEDGE_SOURCE_BODY_LIMIT });
const isKnowledgeSourceUpload = (req: Request): boolean => req.method === 'POST' && req.path === '/knowledge/sources';

/**
 * Named `jsonParser` so that Nest does not mount its own JSON parser after it. Depth is checked on the raw
 * bytes before `JSON.parse` runs; every parser error is answered here as JSON with the rule it broke.
 */
function jsonParser(req: Request, res: Response, next: Next): void {
  (isKnowledgeSourceUpload(req) ? parseKnowledgeSource : parseJson)(req, res, (error?: unknown) => {
    if (error === undefined) return next();
    const failure = error as { status?: number; message?: string; type?: string };
    const status = failure.type === 'entity.verify.failed' || failure.type === 'entity.too.deep' ? 400 : (failure.status ?? 400);
    if (status >= 500) return next(error);
    // Malformed JSON gets FastAPI's detail list naming the body, like every other body error (one error shape).
    if (failure.type === 'entity.parse.failed') {
      res.status(400).json({
        detail: [{ loc: ['body'], msg: `the request body is not valid JSON: ${failure.message ?? 'unreadable'}`, type: 'json_invalid' }],
      });
      return;
    }
    refuse(res, status, failure.message ?? 'the request body could not be read');
  });
}

/** Parameters that Parlant declares as lists (`GET /canned_responses?tags=a&tags=b`); every other one is single-valued. */
export const LIST_QUERY_PARAMETERS: ReadonlySet<string> = new Set(['tags']);

/** A query parameter given twice (`?sse=true&sse=false`) is ambiguous; every route refuses it the same way. */
function singleQueryValues(req: Request, res: Response, next: Next): void {
  const repeated = Object.entries(req.query ?? {}).filter(([name, value]) => typeof value !== 'string' && !LIST_QUERY_PARAMETERS.has(name));
  if (repeated.length === 0) return next();
  refuse(res, 400, `query parameter ${repeated.map(([name]) => `"${name}"`).join(', ')} must be given at most once`);
}

export const requestGuards = [jsonBodiesOnly, jsonParser, singleQueryValues] as const;
