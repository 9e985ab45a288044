import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { readSettings } from '@tenet/config';
import { PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import { accessConfigFrom, ACCESS_SETTINGS_KEY } from '../auth/access-settings.js';
import { serveOpenApiOnFirstRequest } from '../openapi/serve-openapi.js';
import { requestGuards } from './request-guards.js';
import { DetailExceptionFilter } from './detail-exception.filter.js';
import { edgeValidationPipe } from './validation.js';

/** Origins allowed to call the API from a browser on another site: `TENET_CORS_ORIGINS`, comma-separated. */
export function corsOrigins(env: Record<string, string | undefined>): string[] {
  return readSettings(env, ['TENET_CORS_ORIGINS']).TENET_CORS_ORIGINS;
}

/**
 * HTTP conventions shared by every host that serves the gateway: Parlant's paths (no prefix), JSON bodies
 * only, 422 validation, CORS only for configured origins, and the OpenAPI description at /openapi.json with
 * a browsable UI at /docs, built on the first request for them (serve-openapi.ts).
 */
export function configureGatewayHttp(app: INestApplication, env: Record<string, string | undefined> = process.env): void {
  // API keys and rate limits follow this environment (ADR 0018); a setting that would run open against the rules throws
  // here. A host without the gateway module (the memory store alone) has no guard to configure.
  (app as NestExpressApplication).set(
    ACCESS_SETTINGS_KEY,
    accessConfigFrom(env, app.get<PlatformConfig>(PLATFORM_CONFIG, { strict: false }).mode),
  );
  (app as NestExpressApplication).disable('x-powered-by');
  // No ETag on API answers: Express hashes every response body for one (a SHA-1 per request, about 3 % of an inbound
  // channel message's CPU in bench:channels), and no Tenet route answers a conditional GET with 304 — event lists,
  // long-polls and POSTs change with every call. Parlant sends none either.
  (app as NestExpressApplication).set('etag', false);
  // Node closes an idle keep-alive socket after 5 s; a client that reuses it at that moment (likelier on a loaded
  // machine, where its timers run late) gets ECONNRESET for a request the server never saw. Idle sockets are kept
  // well past the clients' and load balancers' own idle limits instead, so the client is the one that closes.
  const server = app.getHttpServer() as { keepAliveTimeout: number; headersTimeout: number };
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Mounted before Nest's own parsers, which then see the body already read (and skip it).
  for (const guard of requestGuards) app.use(guard);
  app.useGlobalPipes(edgeValidationPipe());
  app.useGlobalFilters(new DetailExceptionFilter());
  // Same-origin pages (the /chat page) need no CORS; a browser on another site gets no Allow-Origin unless listed.
  const origins = corsOrigins(env);
  if (origins.length > 0) app.enableCors({ origin: origins });
  serveOpenApiOnFirstRequest(app);
}
