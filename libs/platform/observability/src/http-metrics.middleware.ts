import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TenetMetrics } from './metrics.js';

/**
 * Times every HTTP request into `tenet_http_request_duration_seconds`, labelled with the route pattern
 * (`/sessions/:sessionId/events`), never the raw URL, so ids do not explode the series count.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: TenetMetrics) {}

  use(req: IncomingMessage & { route?: { path?: string }; baseUrl?: string }, res: ServerResponse, next: () => void): void {
    const stop = this.metrics.httpRequestDuration.startTimer();
    res.once('finish', () => {
      const route = req.route?.path ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched';
      stop({ method: req.method ?? 'GET', route, status: String(res.statusCode) });
    });
    next();
  }
}
