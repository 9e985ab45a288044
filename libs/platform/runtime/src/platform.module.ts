import {
  Global,
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  InProcessBudgetStore,
  InProcessRateLimiter,
  RedisBudgetStore,
  RedisRateLimiter,
  type BudgetStore,
  type RateLimiter,
} from '@tenet/budget-store';
import type { MessageBus } from '@tenet/messaging';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { openBus, openPlatform, type PlatformAdapters, type ReadinessCheck } from './platform-adapters.js';
import { loadConfig, type TenetConfig } from '@tenet/config';
import type { PlatformConfig } from './platform-config.js';
import {
  BUDGET_STORE,
  RATE_LIMITER,
  EVENT_LOG_RELAY,
  EVENT_STORE,
  MESSAGE_BUS,
  PLATFORM_CONFIG,
  PLATFORM_DESCRIPTION,
  PLATFORM_READINESS,
  SCHEDULER,
  TENET_CONFIG,
} from './tokens.js';

const PLATFORM = Symbol.for('tenet.platform.adapters');
const OPENED_BUS = Symbol.for('tenet.platform.opened-bus');

class BusLifecycle implements OnApplicationShutdown {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

class PlatformLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(PLATFORM) private readonly platform: PlatformAdapters) {}

  /** Catches up on events committed but not yet published (e.g. before a crash), then follows new appends. */
  async onApplicationBootstrap(): Promise<void> {
    await this.platform.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.platform.close();
  }
}

/**
 * The budget store of the mode: Redis shared by every replica (distributed), or one in-process store that the
 * all-in-one's gateway and matcher share (embedded) — the same choice as the scheduler's.
 */
export const openBudgetStore = (config: PlatformConfig): BudgetStore =>
  config.mode === 'distributed'
    ? new RedisBudgetStore({ connection: redisOptionsFromUrl(config.redisUrl), prefix: config.redisPrefix })
    : new InProcessBudgetStore();

/**
 * The rate limiter of the mode: Redis buckets shared by every replica (distributed) — counted in this process while
 * Redis does not answer, said once when that starts and once when it ends — or in-process buckets (embedded).
 */
export const openRateLimiter = (config: PlatformConfig): RateLimiter => {
  if (config.mode !== 'distributed') return new InProcessRateLimiter();
  const logger = new Logger('RateLimits');
  return new RedisRateLimiter({
    connection: redisOptionsFromUrl(config.redisUrl),
    prefix: config.redisPrefix,
    onAvailability: (error) =>
      error
        ? logger.warn(`Redis does not answer (${error.message}): rate limits are counted in this process until it does`)
        : logger.log('Redis answers again: rate limits are shared by every replica again'),
  });
};

class BudgetStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(BUDGET_STORE) private readonly store: BudgetStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

class RateLimiterLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close();
  }
}

/** The entry point's validated configuration; without one (tests), the process environment's, validated now. */
const settingsOf = (config: PlatformConfig): TenetConfig => config.settings ?? loadConfig('tenet', process.env);

/**
 * Provides the platform ports to every module of a Tenet process: `EVENT_STORE`, `MESSAGE_BUS`,
 * `SCHEDULER` (plus `PLATFORM_CONFIG`, `EVENT_LOG_RELAY` and the `PLATFORM_READINESS` checks). Services depend on the tokens only, so the same
 * modules run all-in-one on embedded adapters or as separate processes on NATS, Redis and MongoDB.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: PLATFORM_CONFIG, useValue: config },
        { provide: TENET_CONFIG, useFactory: () => settingsOf(config) },
        { provide: PLATFORM, useFactory: () => openPlatform(config) },
        { provide: EVENT_STORE, useFactory: (p: PlatformAdapters) => p.eventStore, inject: [PLATFORM] },
        { provide: MESSAGE_BUS, useFactory: (p: PlatformAdapters) => p.bus, inject: [PLATFORM] },
        { provide: SCHEDULER, useFactory: (p: PlatformAdapters) => p.scheduler, inject: [PLATFORM] },
        { provide: EVENT_LOG_RELAY, useFactory: (p: PlatformAdapters) => p.relay, inject: [PLATFORM] },
        { provide: PLATFORM_DESCRIPTION, useFactory: (p: PlatformAdapters) => p.describe(), inject: [PLATFORM] },
        { provide: PLATFORM_READINESS, useFactory: (p: PlatformAdapters) => p.readiness, inject: [PLATFORM] },
        { provide: BUDGET_STORE, useFactory: () => openBudgetStore(config) },
        { provide: RATE_LIMITER, useFactory: () => openRateLimiter(config) },
        PlatformLifecycle,
        BudgetStoreLifecycle,
        RateLimiterLifecycle,
      ],
      exports: [
        PLATFORM_CONFIG,
        TENET_CONFIG,
        EVENT_STORE,
        MESSAGE_BUS,
        SCHEDULER,
        EVENT_LOG_RELAY,
        PLATFORM_DESCRIPTION,
        PLATFORM_READINESS,
        BUDGET_STORE,
        RATE_LIMITER,
      ],
    };
  }

  /** Only `MESSAGE_BUS` (and the config): for a stateless service such as the guideline matcher. */
  static forMessaging(config: PlatformConfig): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: PLATFORM_CONFIG, useValue: config },
        { provide: TENET_CONFIG, useFactory: () => settingsOf(config) },
        { provide: OPENED_BUS, useFactory: () => openBus(config) },
        { provide: MESSAGE_BUS, useFactory: (opened: { bus: MessageBus }) => opened.bus, inject: [OPENED_BUS] },
        { provide: PLATFORM_READINESS, useFactory: (opened: { readiness: ReadinessCheck[] }) => opened.readiness, inject: [OPENED_BUS] },
        { provide: PLATFORM_DESCRIPTION, useValue: { mode: config.mode, bus: config.mode === 'distributed' ? 'nats' : 'in-process' } },
        { provide: BUDGET_STORE, useFactory: () => openBudgetStore(config) },
        BusLifecycle,
        BudgetStoreLifecycle,
      ],
      exports: [PLATFORM_CONFIG, TENET_CONFIG, MESSAGE_BUS, PLATFORM_DESCRIPTION, PLATFORM_READINESS, BUDGET_STORE],
    };
  }
}
