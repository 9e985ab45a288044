import { createRequire } from 'node:module';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

/**
 * The vendor SDKs, loaded when the first client is made (issue 27): a process that never builds an OpenAI or
 * Anthropic client — the journey engine, metering, an offline deployment — never loads them (each is hundreds of
 * modules). Their CommonJS builds, so loading stays synchronous inside the providers' constructors.
 */
const load = createRequire(import.meta.url);

export const openAiSdk = (): typeof OpenAI => (load('openai') as typeof import('openai')).default;
export const anthropicSdk = (): typeof Anthropic => (load('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk')).default;
