import { Module, type DynamicModule } from '@nestjs/common';
import { createLlmProvider, type LlmProvider } from '@tenet/llm';
import { GuidelineMatcher, MATCHER_LLM_PROVIDER } from './guideline-matcher.js';
import { MatcherRpcController } from './matcher.rpc.controller.js';

export interface GuidelineMatcherModuleOptions {
  /** Defaults to the configured provider: OpenAI or Anthropic with a key, else the offline provider. */
  provider?: LlmProvider;
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
      providers: [GuidelineMatcher, { provide: MATCHER_LLM_PROVIDER, useFactory: () => options.provider ?? createLlmProvider(process.env) }],
      exports: [GuidelineMatcher],
    };
  }
}
