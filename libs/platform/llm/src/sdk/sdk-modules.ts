import { createRequire } from 'node:module';
import type * as AnthropicModule from '@anthropic-ai/sdk';
import type * as OpenAiModule from 'openai';

/**
 * The vendor SDKs, loaded when the first client is made (ADR 0035): a process that never builds an OpenAI or
 * Anthropic client — the journey engine, metering, an offline deployment — never loads them (each is hundreds of
 * modules). Their CommonJS builds, so loading stays synchronous inside the providers' constructors.
 */
const load = createRequire(import.meta.url);

export const openAiSdk = (): typeof OpenAiModule.default => (load('openai') as typeof OpenAiModule).default;
export const anthropicSdk = (): typeof AnthropicModule.default => (load('@anthropic-ai/sdk') as typeof AnthropicModule).default;
