import { Injectable, Optional } from '@nestjs/common';
import { TenetMetrics } from '@tenet/observability';
import { Counter, Histogram, Registry } from 'prom-client';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Per-channel series on the process's `/metrics` (the `channel` label is the connection's kind). */
@Injectable()
export class ChannelMetrics {
  readonly inbound: Counter<'channel' | 'outcome'>;
  readonly inboundLatency: Histogram<'channel'>;
  readonly delivered: Counter<'channel'>;
  readonly failed: Counter<'channel'>;
  readonly deliveryLatency: Histogram<'channel'>;

  constructor(@Optional() metrics?: TenetMetrics) {
    const registers = [metrics?.registry ?? new Registry()];
    this.inbound = new Counter({
      name: 'tenet_channel_inbound_total',
      help: 'Platform requests on inbound URLs, by channel and outcome (accepted, duplicate, unauthorized, refused)',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    this.inboundLatency = new Histogram({
      name: 'tenet_channel_inbound_seconds',
      help: 'From a platform message received to its customer event in the session',
      labelNames: ['channel'],
      buckets: BUCKETS,
      registers,
    });
    this.delivered = new Counter({
      name: 'tenet_channel_delivered_total',
      help: 'Agent and human-agent messages delivered to the platform',
      labelNames: ['channel'],
      registers,
    });
    this.failed = new Counter({
      name: 'tenet_channel_delivery_failed_total',
      help: 'Deliveries given up on (listed at GET /channels/{id}/deliveries?status=failed)',
      labelNames: ['channel'],
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'tenet_channel_delivery_seconds',
      help: 'From an agent message in the session to its delivery on the platform',
      labelNames: ['channel'],
      buckets: BUCKETS,
      registers,
    });
  }
}
