import {
  checkArguments,
  descriptorsFromPluginTools,
  invocationRecord,
  nextRetryDelay,
  operationsFromOpenApi,
  placeArguments,
  pluginCallOutcome,
  splitJsonObjects,
} from './index.js';

describe('retry policy', () => {
  const config = { max_attempts: 4, delay_ms: 100, backoff_multiplier: 3 };
  it('backs off exponentially on retryable failures only, and stops when attempts run out', () => {
    expect(nextRetryDelay(config, 1, { retryable: true })).toBe(100);
    expect(nextRetryDelay(config, 2, { retryable: true })).toBe(300);
    expect(nextRetryDelay(config, 3, { retryable: true })).toBe(900);
    expect(nextRetryDelay(config, 4, { retryable: true })).toBeUndefined();
    expect(nextRetryDelay(config, 1, { retryable: false })).toBeUndefined();
    expect(nextRetryDelay(undefined, 1, { retryable: true })).toBeUndefined();
  });
  it('waits at least the Retry-After the service asked for, capped at a minute', () => {
    expect(nextRetryDelay(config, 1, { retryable: true, retryAfterMs: 2_000 })).toBe(2_000);
    expect(nextRetryDelay(config, 1, { retryable: true, retryAfterMs: 10_000_000 })).toBe(60_000);
  });
});

describe('argument validation', () => {
  const schema = {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '^[0-9]+$' }, count: { type: 'integer' } },
    required: ['order_id'],
    additionalProperties: false,
  };
  it('accepts valid arguments and names the parameter and rule otherwise', () => {
    expect(checkArguments(schema, { order_id: '55555' })).toEqual({ ok: true });
    const missing = checkArguments(schema, {});
    expect(missing).toEqual({ ok: false, problems: [{ parameter: 'order_id', rule: 'is required' }] });
    const wrong = checkArguments(schema, { order_id: 'x', count: 'two', extra: 1 });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.problems.map((p) => p.parameter).sort()).toEqual(['count', 'extra', 'order_id']);
  });
  it('reports a schema that does not compile instead of throwing', () => {
    const result = checkArguments({ type: 'object', properties: { a: { type: 'no-such-type' } } }, {});
    expect(result.ok).toBe(false);
  });
});

describe('OpenAPI operations as tools', () => {
  const document = {
    openapi: '3.0.3',
    paths: {
      '/orders/{order_id}': {
        parameters: [{ name: 'order_id', in: 'path', schema: { type: 'string' } }],
        get: {
          operationId: 'get_order',
          summary: 'Order status',
          parameters: [{ name: 'verbose', in: 'query', schema: { type: 'boolean' } }],
        },
        post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } } },
      },
    },
    components: { schemas: { Note: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } },
  };
  it('names operations by operationId or method+path and merges path, query and body parameters', () => {
    const [get, post] = operationsFromOpenApi(document).operations;
    expect(get).toMatchObject({
      name: 'get_order',
      method: 'GET',
      description: 'Order status',
      parameters: { type: 'object', properties: { order_id: { type: 'string' }, verbose: { type: 'boolean' } }, required: ['order_id'] },
    });
    expect(post).toMatchObject({
      name: 'post_orders_order_id',
      placement: { order_id: 'path', text: 'body' },
      parameters: { required: ['order_id', 'text'] },
    });
    expect(placeArguments(post!, { order_id: 'a/b', text: 'hi' })).toEqual({
      path: '/orders/a%2Fb',
      query: [],
      headers: {},
      cookies: [],
      body: { text: 'hi' },
    });
    expect(placeArguments(get!, { order_id: '1', verbose: true })).toEqual({
      path: '/orders/1',
      query: [['verbose', 'true']],
      headers: {},
      cookies: [],
    });
  });
  it('refuses documents that are not OpenAPI 3; skips the operations it cannot call, naming each with the reason', () => {
    expect(() => operationsFromOpenApi({ swagger: '2.0', paths: {} })).toThrow('"openapi" must be a 3.x version string');
    const { operations, skipped } = operationsFromOpenApi({
      openapi: '3.1.0',
      paths: {
        '/x': { get: { operationId: 'remote', parameters: [{ $ref: 'http://evil/x' }] } },
        '/upload': {
          put: {
            operationId: 'upload',
            requestBody: { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          },
        },
        '/form/{id}': {
          post: {
            operationId: 'form',
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
              { name: 'session', in: 'cookie', schema: { type: 'string' } },
            ],
            requestBody: {
              content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { name: { type: 'string' } } } } },
            },
          },
        },
        '/tags': {
          post: {
            operationId: 'tags',
            requestBody: { required: true, content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
          },
        },
        '/tree': {
          get: { operationId: 'tree', parameters: [{ name: 'node', in: 'query', schema: { $ref: '#/components/schemas/Node' } }] },
        },
      },
      components: { schemas: { Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } } },
    });
    expect(operations.map((o) => o.name)).toEqual(['form', 'tags']);
    expect(skipped).toEqual([
      { operation: 'remote (GET /x)', reason: expect.stringContaining('external $ref') as unknown },
      { operation: 'upload (PUT /upload)', reason: expect.stringContaining('application/octet-stream') as unknown },
      { operation: 'tree (GET /tree)', reason: expect.stringContaining('recursive') as unknown },
    ]);
    const [form, tags] = operations;
    expect(form).toMatchObject({ placement: { id: 'path', session: 'cookie', name: 'body' }, body: { encoding: 'form' } });
    expect(placeArguments(form!, { id: 7, session: 's1', name: 'Ada' })).toEqual({
      path: '/form/7',
      query: [],
      headers: {},
      cookies: [['session', 's1']],
      body: { name: 'Ada' },
    });
    expect(tags).toMatchObject({ parameters: { required: ['body'] }, body: { encoding: 'json', whole: 'body' } });
    expect(placeArguments(tags!, { body: ['a', 'b'] }).body).toEqual(['a', 'b']);
  });
});

describe("Parlant's plugin protocol", () => {
  it('maps GET /tools parameters to JSON Schema', () => {
    const [tool] = descriptorsFromPluginTools({
      tools: [
        {
          name: 'get_order',
          description: 'Status',
          parameters: {
            order_id: [{ type: 'string', description: 'id' }, {}],
            when: [{ type: 'date' }, {}],
            tags: [{ type: 'array', item_type: 'string' }, {}],
          },
          required: ['order_id'],
        },
      ],
    });
    expect(tool).toEqual({
      name: 'get_order',
      description: 'Status',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'id' },
          when: { type: 'string', format: 'date' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['order_id'],
      },
    });
  });
  it('reads the result chunk of a streamed call and reports an error chunk', () => {
    expect(splitJsonObjects('{"message":"a}{"}{"status":"typing","data":{}}')).toHaveLength(2);
    expect(pluginCallOutcome('{"message":"working"}{"result":{"data":{"ok":1},"metadata":{},"control":{}}}')).toEqual({
      kind: 'result',
      data: { ok: 1 },
      metadata: {},
      control: {},
    });
    expect(pluginCallOutcome('{"error":"boom"}')).toEqual({ kind: 'error', message: 'boom' });
    expect(() => pluginCallOutcome('{"message":"x"}')).toThrow('no result');
  });
});

describe('ToolInvocation record', () => {
  const outcome = {
    invocation_id: 'k1',
    session_id: 's',
    trace_id: 't',
    agent_id: 'a',
    service_name: 'svc',
    tool_name: 'x',
    tool_id: 'svc:x',
    parameters: {},
    attempts: 1,
    duration_ms: 3,
    started_at: '2026-01-01T00:00:00.000Z',
  };
  it('is one event per idempotency key (id derived from the key), completed or failed', () => {
    expect(invocationRecord(outcome)).toEqual({ id: 'tool-invocation-k1', type: 'ToolInvocationCompleted', data: outcome });
    expect(invocationRecord({ ...outcome, error: { code: 'TOOLS.TIMEOUT', message: 'late' } })).toMatchObject({
      id: 'tool-invocation-k1',
      type: 'ToolInvocationFailed',
    });
  });
});
