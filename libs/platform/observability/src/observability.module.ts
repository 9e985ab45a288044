import {
  Global,
  Module,
  RequestMethod,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpMetricsMiddleware } from './http-metrics.middleware.js';
import { TenetMetrics } from './metrics.js';
import { stopTracing } from './tracing.js';

/**
 * One `TenetMetrics` per process for every module (global), plus HTTP request timing. The host exposes the
 * registry on `/metrics`; feature modules inject `TenetMetrics` with `@Optional()` so they also run without it.
 * On shutdown it flushes the trace exporter.
 */
@Global()
@Module({})
export class ObservabilityModule implements NestModule, OnApplicationShutdown {
  static forRoot(service: string, metrics: TenetMetrics = new TenetMetrics(service)): DynamicModule {
    return {
      module: ObservabilityModule,
      providers: [{ provide: TenetMetrics, useValue: metrics }, HttpMetricsMiddleware],
      exports: [TenetMetrics],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }

  /** Flushes the spans still buffered for the OTLP exporter (when `startTracing` turned tracing on). */
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
