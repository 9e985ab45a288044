import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { toIntegrationEvent } from '../routing.js';
import { canonicalJson, TOOL_INVOCATION_COMPLETED, TOOL_INVOCATION_FAILED, toolEventContracts, toolIdempotencyKey } from './tools.v1.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe('tools.v1', () => {
  it('derives one idempotency key per (session, trace, service, tool, arguments), independent of key order', () => {
    const base = {
      session_id: 's1',
      trace_id: 't1',
      service_name: 'orders',
      tool_name: 'get_order',
      arguments: { a: 1, b: { y: 2, x: [1, { q: 1, p: 2 }] } },
    };
    const key = toolIdempotencyKey(base);
    expect(key).toMatch(/^tool_[0-9a-f]{64}$/);
    expect(toolIdempotencyKey({ ...base, arguments: { b: { x: [1, { p: 2, q: 1 }], y: 2 }, a: 1 } })).toBe(key);
    expect(toolIdempotencyKey({ ...base, trace_id: 't2' })).not.toBe(key);
    expect(toolIdempotencyKey({ ...base, arguments: { a: 2, b: base.arguments.b } })).not.toBe(key);
    expect(canonicalJson({ b: 1, a: [undefined, 'x'], c: undefined })).toBe('{"a":[null,"x"],"b":1}');
  });

  it('publishes logged ToolInvocations as tenet.v1.tool.<session>.invocation_completed|failed, valid against their schemas', () => {
    const ajv = addFormats(new Ajv2020({ strict: false }));
    for (const [type, contract] of [
      [TOOL_INVOCATION_COMPLETED, toolEventContracts[0]!],
      [TOOL_INVOCATION_FAILED, toolEventContracts[1]!],
    ] as const) {
      const data = (contract.example as { data: unknown }).data;
      const routed = toIntegrationEvent({
        id: 'e1',
        streamId: 'tools-s_8f2c',
        offset: 0,
        position: 7,
        type,
        data,
        recordedAt: '2026-11-23T10:30:01.000Z',
      });
      expect(routed?.subject).toBe(
        `tenet.v1.tool.s_8f2c.${type === TOOL_INVOCATION_COMPLETED ? 'invocation_completed' : 'invocation_failed'}`,
      );
      expect(ajv.validate(contract.schema, routed?.payload)).toBe(true);
    }
    expect(
      toIntegrationEvent({
        id: 'e2',
        streamId: 'tools-s1',
        offset: 0,
        position: 1,
        type: 'Other',
        data: {},
        recordedAt: '2026-11-23T10:30:01.000Z',
      }),
    ).toBeUndefined();
  });
});
