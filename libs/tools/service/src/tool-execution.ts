import {
  rpcValidator,
  RpcValidationError,
  TOOL_ERROR_CODES,
  ToolCallRequestV1,
  toolId,
  TOOLS_DESCRIBE_SUBJECT,
  ToolServiceV1,
  type DescribeToolsReplyV1,
  type ToolCallResultV1,
  type ServiceDescriptionV1,
} from '@tenet/contracts';
import { RemoteHandlerError, RequestFailedError, type MessageBus } from '@tenet/messaging';
import { ToolExecutorUnavailableError, ToolServiceError } from './errors.js';
import type { ToolServiceProtocol } from './protocols/protocol.js';
import { defaultDeadlineMs, type ToolWorkQueue } from './queue/tool-work-queue.port.js';
import type { ToolExecution } from './tool-execution.port.js';

const validRequest = rpcValidator(ToolCallRequestV1);
const validService = rpcValidator(ToolServiceV1);

export type Describer = (service: ToolServiceV1) => Promise<ServiceDescriptionV1>;

/** Describe in this process (embedded mode, and the executor's RPC handler). */
export const directDescriber =
  (services: ToolServiceProtocol): Describer =>
  (service) =>
    services.describe(service);

/** Describe through the executor replicas over the bus (`TOOLS_DESCRIBE_SUBJECT`, queue group `tool-executor`). */
export const busDescriber =
  (bus: MessageBus, timeoutMs = 20_000): Describer =>
  async (service) => {
    let reply: DescribeToolsReplyV1;
    try {
      reply = await bus.request<DescribeToolsReplyV1>(TOOLS_DESCRIBE_SUBJECT, { service }, { timeoutMs });
    } catch (error) {
      if (error instanceof RemoteHandlerError)
        throw new ToolServiceError(error.remoteCode ?? TOOL_ERROR_CODES.INVALID_REQUEST, error.message);
      if (error instanceof RequestFailedError) throw new ToolExecutorUnavailableError(`no tool executor answered within ${timeoutMs} ms`);
      throw error;
    }
    if ('error' in reply) throw new ToolServiceError(reply.error.code, reply.error.message);
    return reply.skipped ? { tools: reply.tools, skipped: reply.skipped } : { tools: reply.tools };
  };

/**
 * `TOOL_EXECUTION`: calls go through the work queue (in-process or BullMQ), describe through the describer.
 * A request that breaks the contract comes back failed with `TOOLS.INVALID_REQUEST`; an executor fault with
 * `TOOLS.EXECUTOR_ERROR`; only an executor that does not answer in time throws.
 */
export class QueuedToolExecution implements ToolExecution {
  constructor(
    private readonly queue: ToolWorkQueue,
    private readonly describer: Describer,
  ) {}

  describe(service: ToolServiceV1): Promise<ServiceDescriptionV1> {
    try {
      validService(service);
    } catch (error) {
      return Promise.reject(new ToolServiceError(TOOL_ERROR_CODES.INVALID_REQUEST, `invalid tool service: ${(error as Error).message}`));
    }
    return this.describer(service);
  }

  async execute(request: ToolCallRequestV1, options: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<ToolCallResultV1> {
    const failed = (code: string, message: string): ToolCallResultV1 => ({
      idempotency_key: String(request?.idempotency_key ?? ''),
      tool_id: toolId(String(request?.service?.name ?? ''), String(request?.tool_name ?? '')),
      status: 'failed',
      error: { code, message },
      attempts: 0,
      duration_ms: 0,
      replayed: false,
    });
    try {
      validRequest(request);
    } catch (error) {
      if (error instanceof RpcValidationError) return failed(TOOL_ERROR_CODES.INVALID_REQUEST, error.message);
      throw error;
    }
    try {
      return await this.queue.submit(request, {
        deadlineMs: options.deadlineMs ?? defaultDeadlineMs(request),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (error instanceof ToolExecutorUnavailableError) throw error;
      return failed(TOOL_ERROR_CODES.EXECUTOR_ERROR, 'the tool executor could not complete the call');
    }
  }
}
