import { MATCHER_COMPOSE_SUBJECT, type ComposeReplyRequestV1 } from '@tenet/contracts';
import { OfflineVectorizer, OpenAiProvider } from '@tenet/llm';
import {
  InProcessMessageBus,
  RemoteHandlerError,
  RequestCancelledError,
  requestWithinDeadline,
  RpcCancellations,
  TenetContext,
} from '@tenet/messaging';
import { openAiCompletion, startWireServer, type WireServer } from '@tenet/llm/testing';
import { CoherenceChecker } from './coherence-checker.js';
import { EmbeddingCache } from './embedding-cache.js';
import { GuidelineMatcher } from './guideline-matcher.js';
import { MatcherRpcController } from './matcher.rpc.controller.js';
import { ProviderRegistry } from './provider-registry.js';

const compose: ComposeReplyRequestV1 = {
  session_id: 's1',
  agent: { id: 'a1', name: 'Ada' },
  message: 'Where is my order?',
  history: [],
  matched: [],
};

/** The real controller answering on an in-process bus, with the request's headers as its context (as TenetTransport does). */
async function matcherOn(
  bus: InProcessMessageBus,
  wire: WireServer,
  providerOptions: { timeoutMs?: number; maxRetries?: number } = {},
): Promise<void> {
  const provider = new OpenAiProvider({
    apiKey: 'sk-test',
    baseURL: `${wire.url}/v1`,
    retryPolicy: { baseDelayMs: 10, maxDelayMs: 20 },
    ...providerOptions,
  });
  const registry = new ProviderRegistry(provider);
  const matcher = new GuidelineMatcher(registry, new EmbeddingCache(new OfflineVectorizer()), { logger: { warn: () => undefined } });
  const cancellations = new RpcCancellations(bus);
  await cancellations.start();
  const controller = new MatcherRpcController(matcher, new CoherenceChecker(registry), undefined, cancellations);
  await bus.reply(MATCHER_COMPOSE_SUBJECT, 'guideline-matcher', (data, headers) =>
    controller.compose(data, new TenetContext([MATCHER_COMPOSE_SUBJECT, headers, 1, undefined])),
  );
}

describe('the turn deadline reaches the LLM calls', () => {
  let bus: InProcessMessageBus;
  let wire: WireServer | undefined;
  beforeEach(() => {
    bus = new InProcessMessageBus();
  });
  afterEach(async () => {
    await bus.close();
    await wire?.close();
  });

  it('given a provider that hangs, when the deadline passes, then the matcher gives up with its own error and the provider is not called again', async () => {
    wire = await startWireServer(() => new Promise(() => undefined));
    // Each HTTP attempt times out after 300 ms and would be retried 5 times per temperature without the deadline.
    await matcherOn(bus, wire, { timeoutMs: 300, maxRetries: 5 });
    const failed = requestWithinDeadline(bus, MATCHER_COMPOSE_SUBJECT, compose, { deadlineAt: Date.now() + 1_000, graceMs: 5_000 });
    await expect(failed).rejects.toBeInstanceOf(RemoteHandlerError);
    await expect(failed).rejects.toMatchObject({ remoteCode: 'LLM.UNAVAILABLE', message: expect.stringContaining('cancelled') });
    const calls = wire.requests.length;
    expect(calls).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(wire.requests.length).toBe(calls);
  });

  it('given a provider that hangs, when the requester cancels the step (a newer customer message), then the LLM call is aborted and nothing more is sent', async () => {
    wire = await startWireServer(() => new Promise(() => undefined));
    await matcherOn(bus, wire, { timeoutMs: 60_000, maxRetries: 5 });
    const cancel = new AbortController();
    const step = requestWithinDeadline(bus, MATCHER_COMPOSE_SUBJECT, compose, { deadlineAt: Date.now() + 60_000, signal: cancel.signal });
    step.catch(() => undefined);
    while (wire.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    cancel.abort();
    const error = (await step.catch((e: unknown) => e)) as RequestCancelledError;
    expect(error).toBeInstanceOf(RequestCancelledError);
    // The matcher stopped and said so before the requester's grace ran out.
    expect(error.cause).toBeInstanceOf(RemoteHandlerError);
    expect((error.cause as RemoteHandlerError).message).toContain('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(wire.requests).toHaveLength(1);
  });

  it('given answers out of schema that the provider billed, when the step fails, then the error carries every billed call for metering', async () => {
    // `message` must be a non-empty string: both the first answer and the repair break the schema.
    wire = await startWireServer(() =>
      openAiCompletion({ message: 7, cited_guideline_ids: [], canned_response_id: '' }, { prompt_tokens: 123, completion_tokens: 45 }),
    );
    await matcherOn(bus, wire);
    const failed = requestWithinDeadline(bus, MATCHER_COMPOSE_SUBJECT, compose, { deadlineAt: Date.now() + 30_000 });
    await expect(failed).rejects.toMatchObject({ remoteCode: 'LLM.INVALID_OUTPUT' });
    const error = (await failed.catch((e: unknown) => e)) as RemoteHandlerError;
    expect(error.details?.['calls']).toEqual([
      expect.objectContaining({ purpose: 'compose_reply', provider: 'openai', input_tokens: 123, output_tokens: 45 }),
      expect.objectContaining({ purpose: 'compose_reply', provider: 'openai', input_tokens: 123, output_tokens: 45 }),
    ]);
    // One repair with the validation error, no blind third attempt.
    expect(wire.requests).toHaveLength(2);
    const repair = (wire.requests[1]!.body['messages'] as { content: string }[]).at(-1)!.content;
    expect(repair).toContain('did not match');
  });
});
