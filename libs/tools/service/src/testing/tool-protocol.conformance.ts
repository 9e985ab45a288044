import { randomUUID } from 'node:crypto';
import { TOOL_ERROR_CODES, type ToolCallRequestV1, type ToolServiceV1 } from '@tenet/contracts';
import { ToolServiceError } from '../errors.js';
import { MemoryInvocationRecorder } from '../invocation-recorder.js';
import { outboundPolicyFromEnv } from '../outbound/outbound.js';
import { ToolServices } from '../protocols/tool-services.js';
import { ToolRunner } from '../tool-runner.js';
import type { TestToolServer } from './tool-servers.js';

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The contract of every tool-service adapter (openapi, mcp, sdk), run against a REAL local server of that kind
 * (`libs/tools/service/src/testing/tool-servers.ts`) through the executor's `ToolRunner`: describe, a call with
 * arguments (Idempotency-Key sent, one effect per key), a 5xx retried with backoff then succeeding, a timeout,
 * a failing call returned as failed with its code, an oversized response capped, and the SSRF guard.
 */
export function toolProtocolConformance(name: string, start: () => Promise<TestToolServer>): void {
  describe(`${name} tool service (conformance)`, () => {
    let server: TestToolServer;
    let services: ToolServices;
    let recorder: MemoryInvocationRecorder;
    let runner: ToolRunner;

    beforeAll(async () => {
      server = await start();
      services = new ToolServices(
        outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: server.hostPort, TENET_TOOL_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) }),
      );
      recorder = new MemoryInvocationRecorder();
      runner = new ToolRunner(services, recorder);
    });
    afterAll(async () => {
      await services.close();
      await server.close();
    });

    const request = (tool: string, args: Record<string, unknown>, extra: Partial<ToolCallRequestV1> = {}): ToolCallRequestV1 => ({
      idempotency_key: `k_${randomUUID()}`,
      session_id: 's_conformance',
      trace_id: 't_1',
      agent_id: 'agent_1',
      service: server.service,
      tool_name: tool,
      arguments: args,
      timeout_secs: 20,
      ...extra,
    });

    it('describes the service: every tool with its parameters as one object schema', async () => {
      const { tools } = await services.describe(server.service);
      expect(tools.map((tool) => tool.name).sort()).toEqual(['big', 'fail', 'flaky', 'get_order', 'slow']);
      const getOrder = tools.find((tool) => tool.name === 'get_order');
      expect(getOrder?.description).toContain('Status of an order');
      expect(getOrder?.parameters).toMatchObject({ type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] });
    });

    it('calls a tool with its arguments, sending the Idempotency-Key; a repeated key has no second effect', async () => {
      const call = request('get_order', { order_id: '55555' });
      const result = await runner.run(call);
      expect(result).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        replayed: false,
        tool_id: `${server.service.name}:get_order`,
        result: { data: { order_id: '55555', status: 'shipped' } },
      });
      expect(server.backend.keys).toContain(call.idempotency_key);
      const again = await runner.run(call);
      expect(again.result?.data).toEqual({ order_id: '55555', status: 'shipped' });
      expect(server.backend.requests.get(call.idempotency_key)).toBe(2);
      expect(server.backend.effects.get(call.idempotency_key)).toBe(1);
      expect(recorder.records.filter((record) => record.invocation_id === call.idempotency_key)).toHaveLength(1);
    });

    it('retries a 5xx with backoff, with the same key, then succeeds', async () => {
      const call = request('flaky', { order_id: '1' }, { retry_config: { max_attempts: 4, delay_ms: 20, backoff_multiplier: 2 } });
      const result = await runner.run(call);
      expect(result).toMatchObject({ status: 'succeeded', attempts: 3, result: { data: { order_id: '1', status: 'shipped' } } });
      expect(server.backend.requests.get(call.idempotency_key)).toBe(3);
      expect(server.backend.effects.get(call.idempotency_key)).toBe(1);
    });

    it('gives up on a 5xx when the attempts run out, and does not retry without retry_config', async () => {
      const limited = await runner.run(request('flaky', { order_id: '2' }, { retry_config: { max_attempts: 2, delay_ms: 10 } }));
      expect(limited).toMatchObject({ status: 'failed', attempts: 2, error: { code: TOOL_ERROR_CODES.HTTP_ERROR } });
      const once = await runner.run(request('flaky', { order_id: '3' }));
      expect(once).toMatchObject({ status: 'failed', attempts: 1 });
    });

    it('times out a call that takes longer than timeout_secs', async () => {
      const result = await runner.run(request('slow', { ms: 5_000 }, { timeout_secs: 0.3 }));
      expect(result).toMatchObject({ status: 'failed', attempts: 1, error: { code: TOOL_ERROR_CODES.TIMEOUT } });
      expect(result.error?.message).toContain('did not answer within 300 ms');
    });

    it('returns a failing call as failed with its code, without retrying it', async () => {
      const result = await runner.run(request('fail', {}, { retry_config: { max_attempts: 3, delay_ms: 10 } }));
      expect(result.status).toBe('failed');
      expect(result.attempts).toBe(1);
      expect([TOOL_ERROR_CODES.TOOL_ERROR, TOOL_ERROR_CODES.HTTP_ERROR]).toContain(result.error?.code);
      expect(recorder.records.find((record) => record.invocation_id === result.idempotency_key)?.error?.code).toBe(result.error?.code);
    });

    it('refuses arguments that break the parameter schema before any outbound call, naming the parameter', async () => {
      const before = server.backend.keys.length;
      const result = await runner.run(
        request(
          'get_order',
          { order: 1 },
          { parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
        ),
      );
      expect(result).toMatchObject({ status: 'failed', attempts: 0, error: { code: TOOL_ERROR_CODES.INVALID_ARGUMENTS } });
      expect(result.error?.message).toContain('order_id is required');
      expect(server.backend.keys.length).toBe(before);
    });

    it('caps an oversized response', async () => {
      const result = await runner.run(request('big', { bytes: MAX_RESPONSE_BYTES * 2 }));
      expect(result).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.RESPONSE_TOO_LARGE } });
      const small = await runner.run(request('big', { bytes: 100 }));
      expect(small.status).toBe('succeeded');
    });

    it('refuses a loopback target that the allow-list does not name (host:port must match)', async () => {
      const port = Number(server.hostPort.split(':')[1]);
      const guarded = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: `127.0.0.1:${port + 1}` }));
      try {
        const refused = await guarded.describe(server.service).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(ToolServiceError);
        expect((refused as ToolServiceError).code).toBe(TOOL_ERROR_CODES.TARGET_NOT_ALLOWED);
        const viaName: ToolServiceV1 = {
          ...server.service,
          url: server.service.url.replace('127.0.0.1', 'localhost'),
          ...(server.service.source ? { source: server.service.source.replace('127.0.0.1', 'localhost') } : {}),
        };
        const byName = await guarded.describe(viaName).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect((byName as ToolServiceError).code).toBe(TOOL_ERROR_CODES.TARGET_NOT_ALLOWED);
        const keysBefore = server.backend.keys.length;
        const call = await new ToolRunner(guarded, new MemoryInvocationRecorder()).run(request('get_order', { order_id: '9' }));
        expect(call).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.TARGET_NOT_ALLOWED } });
        expect(server.backend.keys.length).toBe(keysBefore);
      } finally {
        await guarded.close();
      }
    });
  });
}
