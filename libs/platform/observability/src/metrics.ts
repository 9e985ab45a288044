import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets for turns and their stages: LLM-bound, so from 50 ms to two minutes. */
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The usage of one LLM call as the metering service records it (the llm_usage_recorded event's data). */
export interface LlmCallUsage {
  agent_id: string;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_estimate_usd: number;
  latency_ms: number;
}

/**
 * Tenet's Prometheus metrics, one registry per process with a `service` label on every series. The names are
 * the contract of k8s/grafana/tenet-dashboard.json and the matcher's KEDA scaler (k8s/base).
 */
export class TenetMetrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'tenet_http_request_duration_seconds',
    help: 'HTTP requests served, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly turnDuration = new Histogram({
    name: 'tenet_turn_duration_seconds',
    help: 'Time of a turn by stage: match (guideline matching), compose (reply), total (trigger to reply stored)',
    labelNames: ['stage'] as const,
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });

  readonly turnsTotal = new Counter({
    name: 'tenet_turns_total',
    help: 'Turns finished, by outcome (ready, cancelled when a newer message superseded it, error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly llmCalls = new Counter({
    name: 'tenet_llm_calls_total',
    help: 'LLM calls recorded by metering, by agent, provider and model',
    labelNames: ['agent_id', 'provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly llmTokens = new Counter({
    name: 'tenet_llm_tokens_total',
    help: 'LLM tokens recorded by metering, by agent, provider, model and direction (input, output)',
    labelNames: ['agent_id', 'provider', 'model', 'direction'] as const,
    registers: [this.registry],
  });

  readonly llmCost = new Counter({
    name: 'tenet_llm_cost_usd_total',
    help: 'Estimated LLM cost in US dollars recorded by metering, by agent, provider and model',
    labelNames: ['agent_id', 'provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly llmLatency = new Histogram({
    name: 'tenet_llm_call_duration_seconds',
    help: 'Latency of LLM calls as reported with their usage, by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });

  readonly matcherInFlight = new Gauge({
    name: 'tenet_matcher_in_flight_requests',
    help: 'Match and compose requests this matcher replica is working on (the KEDA scaling metric)',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly matcherRequests = new Histogram({
    name: 'tenet_matcher_request_duration_seconds',
    help: 'Match, compose and check_coherence requests answered by this replica, by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });

  readonly toolCalls = new Counter({
    name: 'tenet_tool_calls_total',
    help: 'Tool calls run by the tool executor, by tool service, tool and outcome (ok, error, timeout, refused)',
    // `service` is every series' own label (the process), so the tool's service is `tool_service`.
    labelNames: ['tool_service', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly intentsRecognized = new Counter({
    name: 'tenet_intents_total',
    help: 'Customer messages classified into an intent, by agent, intent (or CLARIFICATION_NEEDED / UNKNOWN) and outcome (recognized, clarify, unknown)',
    labelNames: ['agent_id', 'intent', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly relayPublishedPosition = new Gauge({
    name: 'tenet_event_log_relay_published_position',
    help: "Global log position up to which this process's relay has published",
    registers: [this.registry],
  });

  readonly relayPending = new Gauge({
    name: 'tenet_event_log_relay_pending_events',
    help: 'Events in the log past the relay checkpoint, not yet published (counted up to 10000): the relay lag',
    registers: [this.registry],
  });

  readonly relayFailures = new Gauge({
    name: 'tenet_event_log_relay_consecutive_failures',
    help: 'Relay rounds that failed in a row (0 when publishing works)',
    registers: [this.registry],
  });

  readonly relayLeader = new Gauge({
    name: 'tenet_event_log_relay_leader',
    help: '1 when this process holds the relay lease and publishes, 0 on standby',
    registers: [this.registry],
  });

  constructor(service: string, options: { defaultMetrics?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: 'tenet_' });
      // prom-client names these gauges with a counter's `_total` suffix, which `promtool check metrics` rejects; the
      // same numbers are the sum of `tenet_nodejs_active_{handles,requests,resources}` by type.
      for (const name of ['handles', 'requests', 'resources']) this.registry.removeSingleMetric(`tenet_nodejs_active_${name}_total`);
    }
  }

  /** Counts one finished tool call by its outcome: ok, timeout, refused (arguments, policy) or error. */
  recordToolCall(serviceName: string, toolName: string, error: { code: string } | undefined): void {
    const outcome = !error
      ? 'ok'
      : error.code === 'TOOLS.TIMEOUT'
        ? 'timeout'
        : ['TOOLS.INVALID_ARGUMENTS', 'TOOLS.TARGET_NOT_ALLOWED', 'TOOLS.UNKNOWN_TOOL', 'TOOLS.INVALID_REQUEST'].includes(error.code)
          ? 'refused'
          : 'error';
    this.toolCalls.inc({ tool_service: serviceName, tool: toolName, outcome });
  }

  /** Counts one recorded LLM call: calls, tokens in each direction, cost and latency. */
  recordLlmUsage(usage: LlmCallUsage): void {
    const labels = { agent_id: usage.agent_id, provider: usage.provider, model: usage.model };
    this.llmCalls.inc(labels);
    this.llmTokens.inc({ ...labels, direction: 'input' }, usage.input_tokens);
    this.llmTokens.inc({ ...labels, direction: 'output' }, usage.output_tokens);
    this.llmCost.inc(labels, usage.cost_estimate_usd);
    this.llmLatency.observe({ provider: usage.provider, model: usage.model }, usage.latency_ms / 1000);
  }

  /** Runs `work` counted in `tenet_matcher_in_flight_requests` and timed by outcome. */
  async matcherRequest<T>(operation: 'match' | 'compose' | 'check_coherence', work: () => Promise<T>): Promise<T> {
    this.matcherInFlight.inc({ operation });
    const stop = this.matcherRequests.startTimer({ operation });
    try {
      const result = await work();
      stop({ outcome: 'ok' });
      return result;
    } catch (error) {
      stop({ outcome: 'error' });
      throw error;
    } finally {
      this.matcherInFlight.dec({ operation });
    }
  }

  /** Prometheus text exposition of every metric of this process. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
