import { Module, type DynamicModule } from '@nestjs/common';
import { createEmbeddingProvider, createLlmProvider, type EmbeddingProvider, type LlmProvider } from '@tenet/llm';
import { RpcCancellations, type MessageBus } from '@tenet/messaging';
import { type BudgetStore } from '@tenet/budget-store';
import { BudgetGate } from '@tenet/metering-gate';
import { loadConfig, type TenetConfig } from '@tenet/config';
import { defaultPriceTable, priceTableWith } from '@tenet/metering-domain';
import { BUDGET_STORE, MESSAGE_BUS, TENET_CONFIG } from '@tenet/platform-runtime';
import { CoherenceChecker } from './coherence-checker.js';
import { ContextExtractor } from './context-extractor.js';
import { EmbeddingCache } from './embedding-cache.js';
import { GuidelineMatcher } from './guideline-matcher.js';
import {
  EMBEDDING_CACHE_VARIABLES,
  embeddingCacheOptionsOf,
  GUIDELINE_MATCHER_OPTIONS,
  guidelineMatcherOptionsOf,
  MATCHER_VARIABLES,
} from './matcher-options.js';
import { MatcherRpcController } from './matcher.rpc.controller.js';
import { ProviderRegistry } from './provider-registry.js';

/** The host's `TENET_CONFIG`, or (a host without the platform module) the process environment validated as the matcher's. */
const MATCHER_CONFIG = Symbol.for('tenet.matching.config');

export interface GuidelineMatcherModuleOptions {
  /** Defaults to the configured provider: OpenAI or Anthropic with a key, else the offline provider. */
  provider?: LlmProvider;
  /** Defaults to OpenAI embeddings with a key, else the offline vectorizer. */
  embeddings?: EmbeddingProvider;
}

/**
 * The guideline matcher: answers match and compose requests on the bus (needs the host to connect
 * TenetTransport). `apps/guideline-matcher` runs it alone; the all-in-one host composes it with the rest.
 */
@Module({})
export class GuidelineMatcherModule {
  static forRoot(options: GuidelineMatcherModuleOptions = {}): DynamicModule {
    return {
      module: GuidelineMatcherModule,
      controllers: [MatcherRpcController],
      providers: [
        GuidelineMatcher,
        CoherenceChecker,
        ContextExtractor,
        // The settings come from the process's validated configuration, at the composition root: a bad value fails the start, not a turn.
        {
          provide: MATCHER_CONFIG,
          inject: [{ token: TENET_CONFIG, optional: true }],
          useFactory: (config: TenetConfig | undefined) => config ?? loadConfig('guideline-matcher', process.env),
        },
        {
          provide: GUIDELINE_MATCHER_OPTIONS,
          inject: [MATCHER_CONFIG],
          useFactory: (config: TenetConfig) => guidelineMatcherOptionsOf(config.pick(MATCHER_VARIABLES)),
        },
        { provide: ProviderRegistry, useFactory: () => new ProviderRegistry(options.provider ?? createLlmProvider(process.env)) },
        // Requesters (the gateway) cancel a step they no longer want: its LLM calls are aborted. Without the
        // platform's bus (a host that wires its own transport) only the requests' deadlines apply.
        {
          provide: RpcCancellations,
          inject: [{ token: MESSAGE_BUS, optional: true }],
          useFactory: async (bus: MessageBus | undefined) => {
            if (!bus) return undefined;
            const cancellations = new RpcCancellations(bus);
            await cancellations.start();
            return cancellations;
          },
        },
        // Token budgets are checked before every LLM call, in the shared store of the platform (Redis or in-process).
        {
          provide: BudgetGate,
          inject: [{ token: BUDGET_STORE, optional: true }, MATCHER_CONFIG],
          useFactory: (store: BudgetStore | undefined, config: TenetConfig) =>
            new BudgetGate({ store, prices: priceTableWith(config.get('TENET_PRICES'), defaultPriceTable) }),
        },
        {
          provide: EmbeddingCache,
          inject: [MATCHER_CONFIG],
          useFactory: (config: TenetConfig) =>
            new EmbeddingCache(
              options.embeddings ?? createEmbeddingProvider(process.env),
              embeddingCacheOptionsOf(config.pick(EMBEDDING_CACHE_VARIABLES)),
            ),
        },
      ],
      exports: [GuidelineMatcher, CoherenceChecker],
    };
  }
}
