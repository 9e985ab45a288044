import { Controller, Optional, UseFilters } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CheckCoherenceRequestV1,
  ComposeReplyRequestV1,
  MATCHER_CHECK_COHERENCE_SUBJECT,
  ExtractContextRequestV1,
  MATCHER_EXTRACT_SUBJECT,
  type ExtractContextReplyV1,
  MATCHER_COMPOSE_SUBJECT,
  MATCHER_MATCH_SUBJECT,
  MatchGuidelinesRequestV1,
  rpcValidator,
  type CheckCoherenceReplyV1,
  type ComposeReplyReplyV1,
  type MatchGuidelinesReplyV1,
} from '@tenet/contracts';
import { deadlineSignal, RpcCancellations, TenetContext, TenetExceptionFilter, type Headers } from '@tenet/messaging';
import { TenetMetrics, traced, withRemoteParent } from '@tenet/observability';
import { CoherenceChecker } from './coherence-checker.js';
import { ContextExtractor } from './context-extractor.js';
import { GuidelineMatcher } from './guideline-matcher.js';

/** Every replica of the matcher, in whichever host process it runs, shares one queue group. */
const MATCHER_QUEUE_GROUP = 'guideline-matcher';

const validMatchRequest = rpcValidator(MatchGuidelinesRequestV1);

const validComposeRequest = rpcValidator(ComposeReplyRequestV1);

const validCoherenceRequest = rpcValidator(CheckCoherenceRequestV1);
const validExtractRequest = rpcValidator(ExtractContextRequestV1);

/**
 * The matcher's request/reply surface. Handlers run in the service's queue group, so every request is
 * answered by exactly one replica; a request that breaks its contract is refused with `CONTRACT.INVALID`.
 */
@Controller()
@UseFilters(TenetExceptionFilter)
export class MatcherRpcController {
  constructor(
    private readonly matcher: GuidelineMatcher,
    private readonly coherence: CoherenceChecker,
    @Optional() private readonly metrics?: TenetMetrics,
    @Optional() private readonly cancellations?: RpcCancellations,
    @Optional() private readonly extractor?: ContextExtractor,
  ) {}

  @MessagePattern(MATCHER_MATCH_SUBJECT, { queueGroup: MATCHER_QUEUE_GROUP })
  match(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<MatchGuidelinesReplyV1> {
    const request = validMatchRequest(payload);
    return this.measured('match', context, () => this.withSignal(context, (options) => this.matcher.match(request, options)));
  }

  @MessagePattern(MATCHER_COMPOSE_SUBJECT, { queueGroup: MATCHER_QUEUE_GROUP })
  compose(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<ComposeReplyReplyV1> {
    const request = validComposeRequest(payload);
    return this.measured('compose', context, () => this.withSignal(context, (options) => this.matcher.compose(request, options)));
  }

  /** Evaluations: coherence of proposed guidelines, one LLM call per request (the gateway's background job). */
  @MessagePattern(MATCHER_CHECK_COHERENCE_SUBJECT, { queueGroup: MATCHER_QUEUE_GROUP })
  checkCoherence(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<CheckCoherenceReplyV1> {
    const request = validCoherenceRequest(payload);
    return this.measured('check_coherence', context, () => this.withSignal(context, (options) => this.coherence.check(request, options)));
  }

  /** Context extraction: one LLM call for every variable and the customer's facts (context-extractor.ts). */
  @MessagePattern(MATCHER_EXTRACT_SUBJECT, { queueGroup: MATCHER_QUEUE_GROUP })
  extract(@Payload() payload: unknown, @Ctx() context: TenetContext): Promise<ExtractContextReplyV1> {
    const request = validExtractRequest(payload);
    const extractor = this.extractor;
    if (!extractor) throw new Error('context extraction is not configured in this matcher');
    return withRemoteParent(context.getHeaders(), () =>
      traced('tenet.matcher.extract', { 'messaging.system': 'nats' }, () =>
        this.withSignal(context, (options) => extractor.extract(request, options)),
      ),
    );
  }

  /**
   * Runs a request as a span of the caller's trace (W3C headers) and counts it in flight: the matcher's scaling
   * metric (KEDA, k8s/base/guideline-matcher.yaml).
   */
  private measured<T>(operation: 'match' | 'compose' | 'check_coherence', context: TenetContext, work: () => Promise<T>): Promise<T> {
    const span = () =>
      traced(`tenet.matcher.${operation}`, { 'messaging.system': 'nats', 'messaging.destination.name': context.getSubject() }, work);
    return withRemoteParent(context.getHeaders(), () => (this.metrics ? this.metrics.matcherRequest(operation, span) : span()));
  }

  /** The request's deadline and its requester's cancellation, as the signal every LLM call of the step gets. */
  private withSignal<T>(context: TenetContext | undefined, step: (options: { signal?: AbortSignal }) => Promise<T>): Promise<T> {
    const headers: Headers = context?.getHeaders() ?? {};
    const run = (signal: AbortSignal | undefined): Promise<T> => step(signal ? { signal } : {});
    return this.cancellations ? this.cancellations.run(headers, run) : run(deadlineSignal(headers));
  }
}
