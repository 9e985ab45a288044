import { hostname } from 'node:os';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DescribeToolsRequestV1, rpcValidator, TOOLS_DESCRIBE_SUBJECT, type DescribeToolsReplyV1 } from '@tenet/contracts';
import { TenetExceptionFilter } from '@tenet/messaging';
import { ToolServiceError } from './errors.js';
import type { ToolServiceProtocol } from './protocols/protocol.js';
import { TOOL_SERVICES } from './tokens.js';

/** Every tool-executor replica, in whichever host process it runs, shares one queue group. */
export const TOOL_EXECUTOR_QUEUE_GROUP = 'tool-executor';

const validDescribe = rpcValidator(DescribeToolsRequestV1);
const servedBy = `${hostname()}:${process.pid}`;

/** Answers describe requests: the service's tools, or a stable `TOOLS.*` error the gateway turns into a 4xx. */
@Controller()
@UseFilters(TenetExceptionFilter)
export class ToolsRpcController {
  constructor(@Inject(TOOL_SERVICES) private readonly services: ToolServiceProtocol) {}

  @MessagePattern(TOOLS_DESCRIBE_SUBJECT, { queueGroup: TOOL_EXECUTOR_QUEUE_GROUP })
  async describe(@Payload() payload: unknown): Promise<DescribeToolsReplyV1> {
    const { service } = validDescribe(payload);
    try {
      return { ...(await this.services.describe(service)), served_by: servedBy };
    } catch (error) {
      if (error instanceof ToolServiceError) return { error: { code: error.code, message: error.message }, served_by: servedBy };
      throw error;
    }
  }
}
