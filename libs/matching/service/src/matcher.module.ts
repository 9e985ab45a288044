import { Module, type DynamicModule } from '@nestjs/common';
import { createEmbeddingProvider, createLlmProvider, type EmbeddingProvider, type LlmProvider } from '@tenet/llm';
import { RpcCancellations, type MessageBus } from '@tenet/messaging';
import { BudgetGate, type BudgetStore } from '@tenet/budget-store';
import { defaultPriceTable, priceTableFrom } from '@tenet/metering-domain';
import { BUDGET_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { CoherenceChecker } from './coherence-checker.js';
import { ContextExtractor } from './context-extractor.js';
import { EmbeddingCache } from './embedding-cache.js';
import { GuidelineMatcher } from './guideline-matcher.js';
import { embeddingCacheOptionsFrom, GUIDELINE_MATCHER_OPTIONS, guidelineMatcherOptionsFrom } from './matcher-options.js';
import { MatcherRpcController } from './matcher.rpc.controller.js';
import { ProviderRegistry } from './provider-registry.js';

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
        // The environment is read here, at the composition root: a bad value fails the start, not a turn.
        { provide: GUIDELINE_MATCHER_OPTIONS, useFactory: () => guidelineMatcherOptionsFrom(process.env) },
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
        { provide: BudgetGate, inject: [{ token: BUDGET_STORE, optional: true }], useFactory: (store: BudgetStore | undefined) => new BudgetGate({ store, prices: priceTableFrom(process.env, defaultPriceTable) }) },
        { provide: EmbeddingCache, useFactory: () => new EmbeddingCache(options.embeddings ?? createEmbeddingProvider(process.env), embeddingCacheOptionsFrom(process.env)) },
      ],
      exports: [GuidelineMatcher, CoherenceChecker],
    };
  }
}
