import {
  Inject,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { TOOLS_LIST_CHANGED_SUBJECT, type ToolCallRequestV1, type ToolListChangedV1 } from '@tenet/contracts';
import type { MessageBus } from '@tenet/messaging';
import { failActiveSpan, TenetMetrics, traced, withRemoteParent } from '@tenet/observability';
import { readSettings, type Settings, type TenetConfig } from '@tenet/config';
import { EVENT_STORE, MESSAGE_BUS, PLATFORM_CONFIG, TENET_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { secretBoxFromEnv } from '@tenet/secrets';
import { EventLogInvocationRecorder } from './invocation-recorder.js';
import { OUTBOUND_VARIABLES, outboundPolicyOf } from './outbound/outbound.js';
import { ToolServices } from './protocols/tool-services.js';
import { BullMqToolWorkQueue } from './queue/bullmq-work-queue.js';
import { InProcessToolWorkQueue } from './queue/in-process-work-queue.js';
import type { ToolWorkQueue } from './queue/tool-work-queue.port.js';
import { busDescriber, directDescriber, QueuedToolExecution } from './tool-execution.js';
import { TOOL_EXECUTION } from './tool-execution.port.js';
import { ToolRunner } from './tool-runner.js';
import { TOOL_MODULE_OPTIONS, TOOL_SERVICES, TOOL_WORK_QUEUE } from './tokens.js';
import { ToolsRpcController } from './tools.rpc.controller.js';

export interface ToolModuleOptions {
  /**
   * Targets allowed besides `TENET_TOOL_ALLOWED_HOSTS` (`host` or `host:port`), e.g. the demo tool service a
   * host starts on 127.0.0.1 — that one address, not all of loopback.
   */
  allowedHosts?: string[];
  /** Commands MCP stdio services may run besides `TENET_TOOL_STDIO_COMMANDS` (tests). */
  stdioCommands?: string[];
}

const logger = new Logger('ToolExecutor');

/** Reads the tool executor's settings from the environment; a bad value fails the start, naming the variable. */
export function toolExecutorSettingsFrom(env: Record<string, string | undefined>): ToolExecutorSettings {
  return toolExecutorSettingsOf(readSettings(env, EXECUTOR_VARIABLES));
}

const EXECUTOR_VARIABLES = ['TENET_TOOL_EXECUTOR_CONCURRENCY', 'TENET_TOOL_RESULT_TTL_SECS', 'TENET_TOOL_LOCK_MS'] as const;
type ToolExecutorSettings = { concurrency: number; resultTtlMs: number; lockDurationMs: number };

/** The tool executor's settings from validated ones (rules and defaults: `@tenet/config`). */
function toolExecutorSettingsOf(settings: Pick<Settings, (typeof EXECUTOR_VARIABLES)[number]>): ToolExecutorSettings {
  return {
    concurrency: settings.TENET_TOOL_EXECUTOR_CONCURRENCY,
    resultTtlMs: settings.TENET_TOOL_RESULT_TTL_SECS * 1000,
    lockDurationMs: settings.TENET_TOOL_LOCK_MS,
  };
}

/** An MCP server's tool list changed: the gateways that store the service are told (best effort) and describe it again. */
const announceToolsChanged = (bus: MessageBus) => (service: { name: string; url: string }) => {
  const notice: ToolListChangedV1 = { service_name: service.name, url: service.url };
  void bus
    .notify(TOOLS_LIST_CHANGED_SUBJECT, notice)
    .catch((error: unknown) =>
      logger.warn(`could not announce the new tool list of ${service.name}: ${error instanceof Error ? error.message : String(error)}`),
    );
};

const servicesProvider: Provider = {
  provide: TOOL_SERVICES,
  useFactory: (options: ToolModuleOptions, config: TenetConfig, bus: MessageBus) => {
    const secrets = secretBoxFromEnv(config.pick(['TENET_SECRETS_KEY', 'TENET_SECRETS_KEY_PREVIOUS']));
    return new ToolServices(outboundPolicyOf(config.pick(OUTBOUND_VARIABLES), options.allowedHosts ?? [], options.stdioCommands ?? []), {
      ...(secrets ? { secrets } : {}),
      onToolsChanged: announceToolsChanged(bus),
    });
  },
  inject: [TOOL_MODULE_OPTIONS, TENET_CONFIG, MESSAGE_BUS],
};

/** The process's work queue: in-process in embedded mode, BullMQ on the platform's Redis in distributed mode. */
const workQueueProvider: Provider = {
  provide: TOOL_WORK_QUEUE,
  useFactory: (config: PlatformConfig, tenetConfig: TenetConfig): ToolWorkQueue => {
    const settings = toolExecutorSettingsOf(tenetConfig.pick(EXECUTOR_VARIABLES));
    if (config.mode === 'embedded') return new InProcessToolWorkQueue({ resultTtlMs: settings.resultTtlMs });
    return new BullMqToolWorkQueue({
      connection: redisOptionsFromUrl(config.redisUrl),
      prefix: config.redisPrefix,
      resultTtlMs: settings.resultTtlMs,
      lockDurationMs: settings.lockDurationMs,
      onError: (error, context) => logger.warn(`${context}: ${error.message}`),
    });
  },
  inject: [PLATFORM_CONFIG, TENET_CONFIG],
};

class ToolsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(TOOL_WORK_QUEUE) private readonly queue: ToolWorkQueue,
    @Inject(TOOL_SERVICES) private readonly services: ToolServices,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(TENET_CONFIG) private readonly settings: TenetConfig,
    @Inject('TOOL_RUNS_HERE') private readonly runsHere: boolean,
    @Optional() private readonly metrics?: TenetMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.runsHere) return;
    const runner = new ToolRunner(this.services, new EventLogInvocationRecorder(this.events));
    // Each call is a span of the caller's trace (its context travels in the request): the executor's share of the turn.
    const run = (request: ToolCallRequestV1, signal: AbortSignal) =>
      withRemoteParent(request.trace_context, () =>
        traced(
          'tenet.tool.execute',
          {
            'tenet.session_id': request.session_id,
            'tenet.tool_id': `${request.service.name}:${request.tool_name}`,
            'tenet.idempotency_key': request.idempotency_key,
          },
          async () => {
            const result = await runner.run(request, signal);
            this.metrics?.recordToolCall(request.service.name, request.tool_name, result.error);
            if (result.error) failActiveSpan(result.error);
            return result;
          },
        ),
      );
    await this.queue.process(run, { concurrency: toolExecutorSettingsOf(this.settings.pick(EXECUTOR_VARIABLES)).concurrency });
    logger.log(
      `running tool calls (${this.config.mode === 'embedded' ? 'in-process' : `BullMQ queue tool-calls, prefix ${this.config.redisPrefix}`})`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
    await this.services.close();
  }
}

function lifecycle(runsHere: (config: PlatformConfig) => boolean): Provider[] {
  return [{ provide: 'TOOL_RUNS_HERE', useFactory: runsHere, inject: [PLATFORM_CONFIG] }, ToolsLifecycle];
}

/**
 * `TOOL_EXECUTION` for the gateway, provided globally by the host (a feature lib does not import another, so
 * the gateway injects the token without importing this module). Embedded mode runs calls in this process (in-process queue,
 * describe in-process); distributed mode enqueues on BullMQ and awaits the result, and asks the executor
 * replicas to describe over the bus — the gateway never calls a tool service itself.
 */
@Module({})
export class ToolExecutionClientModule {
  static forRoot(options: ToolModuleOptions = {}): DynamicModule {
    return {
      module: ToolExecutionClientModule,
      global: true,
      providers: [
        { provide: TOOL_MODULE_OPTIONS, useValue: options },
        servicesProvider,
        workQueueProvider,
        {
          provide: TOOL_EXECUTION,
          useFactory: (config: PlatformConfig, queue: ToolWorkQueue, services: ToolServices, bus: MessageBus) =>
            new QueuedToolExecution(queue, config.mode === 'embedded' ? directDescriber(services) : busDescriber(bus)),
          inject: [PLATFORM_CONFIG, TOOL_WORK_QUEUE, TOOL_SERVICES, MESSAGE_BUS],
        },
        ...lifecycle((config) => config.mode === 'embedded'),
      ],
      exports: [TOOL_EXECUTION],
    };
  }
}

/**
 * The tool executor service: in distributed mode a BullMQ worker on the `tool-calls` queue (stalled calls of a
 * dead replica are redone by another) plus the describe RPC in queue group `tool-executor`. In embedded mode
 * calls already run in the gateway's process, so only the describe RPC is added.
 */
@Module({})
export class ToolExecutorModule {
  static forRoot(options: ToolModuleOptions = {}): DynamicModule {
    return {
      module: ToolExecutorModule,
      controllers: [ToolsRpcController],
      providers: [
        { provide: TOOL_MODULE_OPTIONS, useValue: options },
        servicesProvider,
        workQueueProvider,
        ...lifecycle((config) => config.mode === 'distributed'),
      ],
    };
  }
}
