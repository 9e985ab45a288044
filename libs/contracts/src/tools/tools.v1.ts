import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/**
 * Contracts of the tool executor (ADR 0010). The executor does every outbound call to a tool service (describe
 * and execute); the gateway asks it over the messaging port (describe) or through the durable work queue
 * (execute, via `TOOL_EXECUTION` in @tenet/tools-service). Subjects live outside `tenet.v1.>`: requests are
 * not integration events.
 */
export const TOOLS_DESCRIBE_SUBJECT = 'tenet.rpc.v1.tools.describe';

/**
 * A notification (messaging port `notify`/`listen`, best effort, every listener gets it): an MCP server the
 * executor holds a connection to sent `notifications/tools/list_changed`. The gateway that stores the service
 * describes it again and stores the new tool list; a missed notice leaves the list as of the last PUT or refresh.
 */
export const TOOLS_LIST_CHANGED_SUBJECT = 'tenet.rpc.v1.tools.list_changed';

/** Stable error codes of describe and execute; `error.code` in replies and results. */
export const TOOL_ERROR_CODES = {
  SERVICE_UNREACHABLE: 'TOOLS.SERVICE_UNREACHABLE',
  INVALID_DOCUMENT: 'TOOLS.INVALID_DOCUMENT',
  TARGET_NOT_ALLOWED: 'TOOLS.TARGET_NOT_ALLOWED',
  UNKNOWN_TOOL: 'TOOLS.UNKNOWN_TOOL',
  INVALID_ARGUMENTS: 'TOOLS.INVALID_ARGUMENTS',
  TIMEOUT: 'TOOLS.TIMEOUT',
  HTTP_ERROR: 'TOOLS.HTTP_ERROR',
  RESPONSE_TOO_LARGE: 'TOOLS.RESPONSE_TOO_LARGE',
  TOOL_ERROR: 'TOOLS.TOOL_ERROR',
  CANCELLED: 'TOOLS.CANCELLED',
  /** The request itself broke ToolCallRequestV1 (a caller bug), named field by field. */
  INVALID_REQUEST: 'TOOLS.INVALID_REQUEST',
  /** The executor failed the call for a reason of its own (e.g. its event log was down) after retrying. */
  EXECUTOR_ERROR: 'TOOLS.EXECUTOR_ERROR',
} as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[keyof typeof TOOL_ERROR_CODES];

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' });

/** A registered tool service (Parlant's `openapi` / `mcp` / `sdk` kinds). */
export const ToolServiceV1 = Type.Object(
  {
    name: Name,
    kind: Type.Union([Type.Literal('openapi'), Type.Literal('mcp'), Type.Literal('sdk')]),
    /** Base URL of calls (openapi), the MCP endpoint (mcp) or the plugin server (sdk). */
    url: Type.String({ minLength: 1, format: 'uri' }),
    /** openapi only: URL of the OpenAPI document (JSON or YAML). */
    source: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * mcp only: a server the executor runs as a child process and speaks to over stdio (then `url` is
     * `stdio:<command>`). The child's environment is `env` plus PATH/HOME-like basics (nothing of the executor's own
     * is inherited); the gateway sends the registrant's env sealed in `auth` (scheme `env`) instead of here.
     */
    stdio: Type.Optional(
      Type.Object(
        {
          command: Type.String({ minLength: 1, maxLength: 1024 }),
          args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64 })),
          env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 8192 }))),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * The service's credentials, sealed by the gateway with TENET_SECRETS_KEY (`@tenet/secrets`, owner
     * `owner`): only the executor opens them, so no plaintext secret travels on the bus or the work queue.
     */
    auth: Type.Optional(
      Type.Object(
        {
          scheme: Type.String({ minLength: 1, maxLength: 64 }),
          sealed: Type.String({ minLength: 1, maxLength: 65536 }),
          owner: Type.String({ minLength: 1, maxLength: 256 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ToolServiceV1 = Static<typeof ToolServiceV1>;

/** A JSON Schema object describing a tool's arguments. */
export const ToolParametersV1 = Type.Object(
  {
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), Type.Unknown()),
    required: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
export type ToolParametersV1 = Static<typeof ToolParametersV1>;

export const ToolDescriptorV1 = Type.Object(
  { name: Type.String({ minLength: 1 }), description: Type.String(), parameters: ToolParametersV1 },
  { additionalProperties: false },
);
export type ToolDescriptorV1 = Static<typeof ToolDescriptorV1>;

export const DescribeToolsRequestV1 = Type.Object({ service: ToolServiceV1 }, { additionalProperties: false });
export type DescribeToolsRequestV1 = Static<typeof DescribeToolsRequestV1>;

/** Payload of `TOOLS_LIST_CHANGED_SUBJECT`: which service (and at which URL, so a stale registration's notice is ignored). */
export const ToolListChangedV1 = Type.Object({ service_name: Name, url: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export type ToolListChangedV1 = Static<typeof ToolListChangedV1>;

export const ToolErrorV1 = Type.Object({ code: Type.String({ minLength: 1 }), message: Type.String() }, { additionalProperties: false });
export type ToolErrorV1 = Static<typeof ToolErrorV1>;

/** An operation of an OpenAPI document that is not offered as a tool, and why (e.g. a body Tenet cannot send). */
export const SkippedOperationV1 = Type.Object({ operation: Type.String(), reason: Type.String() }, { additionalProperties: false });
export type SkippedOperationV1 = Static<typeof SkippedOperationV1>;

/** What describing a service found: its tools, and (OpenAPI) the operations left out with their reasons. */
export interface ServiceDescriptionV1 {
  tools: ToolDescriptorV1[];
  skipped?: SkippedOperationV1[];
}

/** Reply of `TOOLS_DESCRIBE_SUBJECT`: the tools, or a stable error (the gateway answers 4xx naming it). */
export const DescribeToolsReplyV1 = Type.Union([
  Type.Object(
    {
      tools: Type.Array(ToolDescriptorV1),
      skipped: Type.Optional(Type.Array(SkippedOperationV1)),
      served_by: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  Type.Object({ error: ToolErrorV1, served_by: Type.Optional(Type.String()) }, { additionalProperties: false }),
]);
export type DescribeToolsReplyV1 = Static<typeof DescribeToolsReplyV1>;

/** A tool's `retry_config` (docs/data-model.md#tools): retried only on retryable errors (timeouts, connection errors, 5xx, 429). */
export const ToolRetryConfigV1 = Type.Object(
  {
    max_attempts: Type.Integer({ minimum: 1, maximum: 10 }),
    delay_ms: Type.Integer({ minimum: 0, maximum: 60_000 }),
    backoff_multiplier: Type.Optional(Type.Number({ minimum: 1, maximum: 10 })),
  },
  { additionalProperties: false },
);
export type ToolRetryConfigV1 = Static<typeof ToolRetryConfigV1>;

export const ToolCallRequestV1 = Type.Object(
  {
    idempotency_key: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }),
    /** A subject token: the audit events are published on `tenet.v1.tool.<session_id>.*`. */
    session_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    trace_id: Type.String({ minLength: 1 }),
    agent_id: Type.String({ minLength: 1 }),
    /** Sent to Parlant plugin (sdk) services, which take it in their tool context; default `guest`. */
    customer_id: Type.Optional(Type.String({ minLength: 1 })),
    service: ToolServiceV1,
    tool_name: Type.String({ minLength: 1 }),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    /** The tool's parameter schema; arguments are checked against it before any outbound call. */
    parameters: Type.Optional(ToolParametersV1),
    timeout_secs: Type.Number({ exclusiveMinimum: 0, maximum: 600 }),
    retry_config: Type.Optional(ToolRetryConfigV1),
    /** W3C trace context of the caller's span (`traceparent`, `tracestate`): the executor's span joins the turn's trace. */
    trace_context: Type.Optional(Type.Record(Type.String(), Type.String())),
    /**
     * The agent's workspace (ADR 0018): stamped on the invocation's audit events, whose v2 subjects carry it — the
     * executor's own log does not hold the ownership index to resolve it from.
     */
    workspace_id: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,47}$' })),
  },
  { additionalProperties: false },
);
export type ToolCallRequestV1 = Static<typeof ToolCallRequestV1>;

/** Parlant's ToolResult shape. */
export const ToolResultPayloadV1 = Type.Object(
  { data: Type.Unknown(), metadata: Type.Record(Type.String(), Type.Unknown()), control: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);
export type ToolResultPayloadV1 = Static<typeof ToolResultPayloadV1>;

export const ToolCallResultV1 = Type.Object(
  {
    idempotency_key: Type.String({ minLength: 1 }),
    /** `service:tool`. */
    tool_id: Type.String({ minLength: 1 }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    result: Type.Optional(ToolResultPayloadV1),
    /** Customer-safe: no header values, no secrets. */
    error: Type.Optional(ToolErrorV1),
    attempts: Type.Integer({ minimum: 0 }),
    duration_ms: Type.Number({ minimum: 0 }),
    /** True when the result was recorded earlier and returned without calling the tool again. */
    replayed: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ToolCallResultV1 = Static<typeof ToolCallResultV1>;

export const toolId = (serviceName: string, toolName: string): string => `${serviceName}:${toolName}`;

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** The idempotency key of one tool call in one turn: equal inputs, equal key; any difference, another key. */
export function toolIdempotencyKey(input: {
  session_id: string;
  trace_id: string;
  service_name: string;
  tool_name: string;
  arguments: Record<string, unknown>;
}): string {
  const digest = createHash('sha256').update(canonicalJson(input)).digest('hex');
  return `tool_${digest}`;
}

// ---- Audit: tool invocation records (docs/data-model.md#tool-audit), published as integration events ----

/** A session's tool invocations are the `tools-<session_id>` stream of the event log. */
export const toolStreamId = (sessionId: string): string => `tools-${sessionId}`;
export const TOOL_INVOCATION_COMPLETED = 'ToolInvocationCompleted';
export const TOOL_INVOCATION_FAILED = 'ToolInvocationFailed';

const invocationData = Type.Object(
  {
    invocation_id: Type.String({ minLength: 1, description: 'The idempotency key of the call' }),
    session_id: Type.String({ minLength: 1 }),
    trace_id: Type.String({ minLength: 1 }),
    agent_id: Type.String({ minLength: 1 }),
    service_name: Type.String({ minLength: 1 }),
    tool_name: Type.String({ minLength: 1 }),
    tool_id: Type.String({ minLength: 1 }),
    parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'The arguments the tool was called with' }),
    result: Type.Optional(ToolResultPayloadV1),
    error: Type.Optional(ToolErrorV1),
    attempts: Type.Integer({ minimum: 0 }),
    duration_ms: Type.Number({ minimum: 0 }),
    started_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type ToolInvocationData = Static<typeof invocationData>;

export const ToolInvocationCompletedV1 = envelopeSchema('tool.invocation_completed', invocationData);
export const ToolInvocationFailedV1 = envelopeSchema('tool.invocation_failed', invocationData);
export type ToolInvocationCompletedV1 = Static<typeof ToolInvocationCompletedV1>;
export type ToolInvocationFailedV1 = Static<typeof ToolInvocationFailedV1>;

export function toToolIntegrationEvent(
  event: LoggedEvent,
): { subject: string; payload: ToolInvocationCompletedV1 | ToolInvocationFailedV1 } | undefined {
  if (!event.streamId.startsWith('tools-')) return undefined;
  const name =
    event.type === TOOL_INVOCATION_COMPLETED
      ? 'invocation_completed'
      : event.type === TOOL_INVOCATION_FAILED
        ? 'invocation_failed'
        : undefined;
  if (!name) return undefined;
  const data = event.data as ToolInvocationData;
  const type = `tool.${name}` as const;
  const envelope = {
    ...envelopeOf(event),
    data,
  };
  return {
    subject: subjectFor('tool', data.session_id, name),
    payload:
      type === 'tool.invocation_completed'
        ? { ...envelope, type: 'tool.invocation_completed' }
        : { ...envelope, type: 'tool.invocation_failed' },
  };
}

const exampleData: ToolInvocationData = {
  invocation_id: 'tool_4b1f0c2d9e8a7f6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b',
  session_id: 's_8f2c',
  trace_id: 'tr_51a0',
  agent_id: 'demo-support',
  service_name: 'orders',
  tool_name: 'get_order_status',
  tool_id: 'orders:get_order_status',
  parameters: { order_id: '55555' },
  result: { data: { order_id: '55555', status: 'shipped' }, metadata: {}, control: {} },
  attempts: 1,
  duration_ms: 42,
  started_at: '2026-11-23T10:30:00.950Z',
};

const { result: _result, ...failedExample } = exampleData;

export const toolEventContracts: IntegrationEventContract[] = [
  {
    type: 'tool.invocation_completed',
    description: 'A tool call succeeded (its invocation record): tool, arguments, result, attempts and duration. One per idempotency key.',
    subjectPattern: 'tenet.v1.tool.{session_id}.invocation_completed',
    schema: ToolInvocationCompletedV1,
    example: {
      id: '9a3e0f2c-7b1d-4c8e-a5f6-0d9c8b7a6e51',
      type: 'tool.invocation_completed',
      version: 1,
      stream: 'tools-s_8f2c',
      offset: 0,
      position: 1051,
      occurred_at: '2026-11-23T10:30:01.000Z',
      data: exampleData,
    },
  },
  {
    type: 'tool.invocation_failed',
    description:
      "A tool call failed after its retries (its invocation record): the stable error code and a customer-safe message. Whether the turn goes on is the agent's allow_failure.",
    subjectPattern: 'tenet.v1.tool.{session_id}.invocation_failed',
    schema: ToolInvocationFailedV1,
    example: {
      id: '0c7d2e9f-1a3b-4c5d-8e6f-7a8b9c0d1e2f',
      type: 'tool.invocation_failed',
      version: 1,
      stream: 'tools-s_8f2c',
      offset: 1,
      position: 1060,
      occurred_at: '2026-11-23T10:31:05.000Z',
      data: {
        ...failedExample,
        invocation_id: 'tool_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e',
        error: { code: 'TOOLS.TIMEOUT', message: 'orders:get_order_status did not answer within 10s' },
        attempts: 3,
        duration_ms: 30_120,
      },
    },
  },
];
