import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * What the decorators of the controllers do not say about the API, added to the generated OpenAPI document in
 * one place: a summary and a resource tag for every operation, response schemas (the wire shapes the handlers
 * return), the error responses (`{detail}`: 422 validation, 404 unknown resource, 400 malformed JSON, 409
 * conflicts) and the query parameters and headers of handlers that read them by hand (the events long-poll/SSE, the
 * idempotency keys).
 * Request bodies come from the validation rules already (configure-http.ts).
 */

type Schema = Record<string, unknown>;
type Operation = {
  summary?: string;
  tags?: string[];
  parameters?: Schema[];
  responses?: Record<string, Schema>;
  requestBody?: unknown;
  description?: string;
};

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const date: Schema = { type: 'string', format: 'date-time' };
const strings: Schema = { type: 'array', items: str };
const record: Schema = { type: 'object', additionalProperties: true };
const EVENT_SOURCE: Schema = {
  type: 'string',
  enum: ['customer', 'customer_ui', 'human_agent', 'human_agent_on_behalf_of_ai_agent', 'ai_agent', 'system'],
};
const object = (properties: Record<string, Schema>, required: string[], open = false): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: open,
});
const listOf = (name: string): Schema => ({ type: 'array', items: ref(name) });
const page = (name: string): Schema =>
  object({ items: listOf(name), total_count: int, has_more: bool, next_cursor: str }, ['items', 'total_count', 'has_more']);

/** Response bodies, by component name. */
const SCHEMAS: Record<string, Schema> = {
  HTTPError: object({ detail: str }, ['detail']),
  ValidationError: object(
    {
      detail: {
        type: 'array',
        items: object({ loc: { type: 'array', items: { oneOf: [str, int] } }, msg: str, type: str }, ['loc', 'msg', 'type']),
      },
    },
    ['detail'],
  ),
  Agent: object(
    {
      id: str,
      name: str,
      description: str,
      composition_mode: str,
      message_output_mode: str,
      max_engine_iterations: int,
      tags: strings,
      config: record,
      matching: record,
      tools: { type: 'array', items: record },
      no_match_message: str,
      failure_reply: str,
      creation_utc: date,
      updated_at: date,
    },
    ['id', 'name', 'tags', 'creation_utc'],
    true,
  ),
  Session: object(
    {
      id: str,
      agent_id: str,
      customer_id: str,
      creation_utc: date,
      title: str,
      mode: { type: 'string', enum: ['auto', 'manual', 'paused'] },
      consumption_offsets: object({ client: int }, ['client']),
      metadata: record,
      labels: strings,
      state: { type: 'string', description: 'Session lifecycle state: Active, Idle, AwaitingInput, AwaitingTool, Completed, Expired' },
      status: { type: 'string', enum: ['active', 'completed', 'abandoned', 'expired'] },
      config: record,
      expires_at: date,
      last_activity_at: { ...date, description: 'GET /sessions/{id} only: the last message, else the creation time' },
      message_count: { ...int, description: 'GET /sessions/{id} only: messages not deleted' },
      usage: {
        ...record,
        description: "GET /sessions/{id} only: input/output/total tokens, cost estimate and turns so far, from the turns' ready statuses",
      },
      active_journey: {
        ...record,
        description:
          'GET /sessions/{id} only, while in a journey: journey_id, status, step, started_at, updated_at, history of steps with times, collected context',
      },
    },
    ['id', 'agent_id', 'customer_id', 'creation_utc', 'mode', 'consumption_offsets', 'metadata', 'labels'],
  ),
  Event: object(
    {
      id: str,
      source: EVENT_SOURCE,
      kind: { type: 'string', enum: ['message', 'tool', 'status', 'custom'] },
      offset: int,
      creation_utc: date,
      correlation_id: str,
      trace_id: str,
      data: {},
      metadata: record,
      deleted: bool,
    },
    ['id', 'source', 'kind', 'offset', 'creation_utc', 'correlation_id', 'trace_id', 'metadata', 'deleted'],
  ),
  Customer: object({ id: str, name: str, metadata: { type: 'object', additionalProperties: str }, tags: strings, creation_utc: date }, [
    'id',
    'name',
    'metadata',
    'tags',
    'creation_utc',
  ]),
  Tag: object({ id: str, name: str, creation_utc: date }, ['id', 'name', 'creation_utc']),
  Guideline: object(
    {
      id: str,
      condition: str,
      action: str,
      description: str,
      title: str,
      criticality: str,
      enabled: bool,
      tags: strings,
      metadata: record,
      priority: int,
      labels: strings,
      tools: strings,
      required_context: strings,
      creation_utc: date,
    },
    ['id', 'condition', 'enabled', 'tags', 'metadata'],
    true,
  ),
  ContextVariable: object(
    {
      id: str,
      name: str,
      description: str,
      tool_id: object({ service_name: str, tool_name: str }, ['service_name', 'tool_name']),
      freshness_rules: str,
      tags: strings,
      data_type: {
        type: 'string',
        enum: ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object'],
        description: 'Absent: any JSON value',
      },
      required: bool,
      metadata: record,
      creation_utc: date,
    },
    ['id', 'name', 'tags'],
    true,
  ),
  ContextVariableValue: object(
    {
      id: str,
      last_modified: date,
      data: {},
      confidence: { type: 'number', minimum: 0, maximum: 1 },
      source_message_id: str,
      extracted_at: date,
    },
    ['id', 'last_modified', 'data'],
  ),
  ContextVariableReadResult: object(
    { context_variable: ref('ContextVariable'), key_value_pairs: { type: 'object', additionalProperties: ref('ContextVariableValue') } },
    ['context_variable'],
  ),
  Term: object({ id: str, name: str, description: str, synonyms: strings, tags: strings, creation_utc: date }, [
    'id',
    'name',
    'description',
    'synonyms',
    'tags',
  ]),
  Capability: object({ id: str, title: str, description: str, signals: strings, tags: strings, creation_utc: date }, [
    'id',
    'title',
    'description',
    'signals',
    'tags',
  ]),
  Relationship: object(
    { id: str, kind: str, source: record, target: record, creation_utc: date },
    ['id', 'kind', 'source', 'target'],
    true,
  ),
  CannedResponse: object(
    {
      id: str,
      value: str,
      fields: { type: 'array', items: record },
      tags: strings,
      signals: strings,
      metadata: record,
      field_dependencies: strings,
      creation_utc: date,
    },
    ['id', 'value', 'tags'],
  ),
  Intent: object(
    {
      id: str,
      name: str,
      description: str,
      examples: strings,
      keywords: strings,
      parameters: {
        type: ['object', 'null'],
        additionalProperties: true,
        description: 'JSON Schema (type object) of the parameters extracted from the conversation',
      },
      tool: { type: ['string', 'null'], description: 'The agent tool a recognised intent runs with the extracted parameters' },
      journey_id: { type: ['string', 'null'], description: 'The journey a recognised intent activates' },
      tags: strings,
      creation_utc: date,
    },
    ['id', 'name', 'description', 'examples', 'keywords', 'parameters', 'tool', 'journey_id', 'tags', 'creation_utc'],
  ),
  Evaluation: object(
    {
      id: str,
      status: { type: 'string', enum: ['pending', 'running', 'completed', 'failed'] },
      progress: { type: 'number', minimum: 0, maximum: 100 },
      creation_utc: date,
      error: str,
      invoices: {
        type: 'array',
        items: object({ payload: record, checksum: str, approved: bool, data: record, error: str }, ['payload', 'checksum', 'approved']),
      },
    },
    ['id', 'status', 'progress', 'creation_utc', 'invoices'],
  ),
  Usage: object({ agent_id: str, from: date, to: date }, ['agent_id'], true),
  Budget: object(
    {
      agent_id: str,
      session_id: str,
      budgets: {
        type: 'array',
        items: object(
          {
            key: str,
            period: { type: 'string', enum: ['session', 'day', 'month'] },
            period_id: str,
            unit: { type: 'string', enum: ['tokens', 'usd'] },
            limit: { type: 'number' },
            used: { type: 'number' },
            reserved: { type: 'number' },
            remaining: { type: 'number' },
            exhausted: bool,
            period_start: date,
            resets_at: date,
          },
          ['key', 'period', 'period_id', 'unit', 'limit', 'used', 'reserved', 'remaining', 'exhausted'],
        ),
      },
      exhausted_message: { type: ['string', 'null'] },
      on_exhausted: { type: ['string', 'null'] },
    },
    ['agent_id', 'budgets'],
  ),
  ApiKey: object(
    {
      id: str,
      workspace_id: str,
      name: str,
      role: { type: 'string', enum: ['admin', 'agent-runtime', 'read-only'] },
      created_at: date,
      revoked: bool,
      revoked_at: date,
      last_used_at: { type: ['string', 'null'], format: 'date-time' },
      prefix: str,
      key: { type: 'string', description: 'The key itself: in the answer to POST /keys only' },
    },
    ['id', 'workspace_id', 'name', 'role', 'created_at', 'revoked', 'last_used_at', 'prefix'],
  ),
  SessionToken: object({ token: str, session_id: str, expires_at: date }, ['token', 'session_id', 'expires_at']),
  Workspace: object({ id: str, budget: { type: ['object', 'null'], additionalProperties: true } }, ['id', 'budget']),
  Health: record,
  KnowledgeSource: object({ id: str, title: str }, ['id'], true),
  KnowledgeSearch: record,
  CustomerMemory: record,
};

/** The resource a path belongs to, which is also its response component and tag. */
const RESOURCES: [RegExp, string, string][] = [
  [/^\/sessions\/\{[^}]+\}\/events/, 'events', 'Event'],
  [/^\/sessions\/\{[^}]+\}\/tokens/, 'keys', 'SessionToken'],
  [/^\/sessions/, 'sessions', 'Session'],
  [/^\/agents\/\{[^}]+\}\/usage/, 'usage', 'Usage'],
  [/^\/agents\/\{[^}]+\}\/budget/, 'budgets', 'Budget'],
  [/^\/keys/, 'keys', 'ApiKey'],
  [/^\/workspace/, 'workspaces', 'Workspace'],
  [/^\/knowledge\/search/, 'knowledge', 'KnowledgeSearch'],
  [/^\/knowledge/, 'knowledge', 'KnowledgeSource'],
  [/^\/customers\/\{[^}]+\}\/memory/, 'memory', 'CustomerMemory'],
  [/^\/agents/, 'agents', 'Agent'],
  [/^\/customers/, 'customers', 'Customer'],
  [/^\/tags/, 'tags', 'Tag'],
  [/^\/guidelines/, 'guidelines', 'Guideline'],
  [/^\/context-variables\/\{[^}]+\}\/\{/, 'context-variables', 'ContextVariableValue'],
  [/^\/context-variables/, 'context-variables', 'ContextVariable'],
  [/^\/terms/, 'glossary', 'Term'],
  [/^\/capabilities/, 'capabilities', 'Capability'],
  [/^\/relationships/, 'relationships', 'Relationship'],
  [/^\/canned_responses/, 'canned-responses', 'CannedResponse'],
  [/^\/intents/, 'intents', 'Intent'],
  [/^\/evaluations/, 'evaluations', 'Evaluation'],
  [/^\/healthz/, 'health', 'Health'],
  [/^\/chat/, 'chat', 'ChatPage'],
];

/** Summaries where the generic one would say too little. */
const SUMMARIES: Record<string, string> = {
  'GET /sessions': 'List sessions (filter by agent, customer, labels; paginate with limit/cursor)',
  'DELETE /sessions': 'Delete every session of an agent and/or customer',
  'PATCH /sessions/{sessionId}': 'Update a session: mode (hand-off), title, metadata, labels, offsets; end it with status',
  'GET /sessions/{sessionId}/events': 'List session events; long-poll with wait_for_data, or stream with sse=true',
  'POST /sessions/{sessionId}/events': 'Add an event to a session (a customer message starts a turn in auto mode)',
  'DELETE /sessions/{sessionId}/events': 'Delete the events from min_offset on (a tombstone; the log keeps them)',
  'GET /sessions/{sessionId}/events/{eventId}': 'Read one session event',
  'PATCH /sessions/{sessionId}/events/{eventId}': "Update a session event's metadata",
  'GET /agents/{agentId}/usage': "An agent's LLM token usage and estimated cost",
  'GET /agents/{agentId}/budget': "An agent's token budgets: limit, used, reserved and reset time of each",
  'POST /sessions/{sessionId}/tokens': 'Mint a short-lived token for one session (for a browser)',
  'POST /keys': 'Create an API key (the key is in this answer only)',
  'GET /keys': "List the workspace's API keys with their last use",
  'GET /keys/{keyId}': 'Read an API key (never the key itself)',
  'DELETE /keys/{keyId}': 'Revoke an API key',
  'GET /workspace': "Read the caller's workspace (its token budget)",
  'PATCH /workspace': "Set the caller's workspace token budget (per day or month)",
  'POST /evaluations': 'Start a coherence evaluation of proposed guidelines (runs in the background)',
  'GET /evaluations/{evaluationId}': 'Read an evaluation, waiting up to wait_for_completion seconds for it to finish',
  'PUT /context-variables/{variableId}/{key}': "Set a context variable's value for a key",
  'GET /context-variables/{variableId}/{key}': "Read a context variable's value for a key",
  'DELETE /context-variables/{variableId}/{key}': "Delete a context variable's value for a key",
  'GET /healthz': 'Health of the process and its dependencies',
  'GET /chat': 'The browser chat page (HTML) for an agent',
};

const EVENTS_QUERY: Schema[] = [
  {
    name: 'min_offset',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    description: 'Only events at or after this offset',
  },
  {
    name: 'wait_for_data',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 0, maximum: 300 },
    description: 'Seconds to wait for a matching event (then 504); in SSE mode, how long the stream may stay without one (default 60)',
  },
  { name: 'kinds', in: 'query', required: false, schema: str, description: 'Comma-separated event kinds: message, tool, status, custom' },
  { name: 'source', in: 'query', required: false, schema: EVENT_SOURCE, description: 'Only events from this source' },
  { name: 'correlation_id', in: 'query', required: false, schema: str },
  { name: 'trace_id', in: 'query', required: false, schema: str },
  { name: 'sse', in: 'query', required: false, schema: bool, description: 'Stream the events as Server-Sent Events (text/event-stream)' },
];

/** Headers a handler reads by hand, documented after the parameters Nest derives from its signature. */
const HEADERS: Record<string, Schema[]> = {
  'POST /sessions': [
    {
      name: 'Idempotency-Key',
      in: 'header',
      description:
        'Creating again with the same key returns the session the first request created; the same key with a different body is a 422. The key is kept in the event log.',
      required: false,
      schema: str,
    },
  ],
  'POST /sessions/{sessionId}/events': [
    {
      name: 'Idempotency-Key',
      in: 'header',
      description:
        "Posting again with the same key returns the first event (same id and offset) and writes nothing; the same key with a different body is a 422. Keys are kept in the session's event log, so they hold across restarts and gateway replicas.",
      required: false,
      schema: str,
    },
  ],
};

/** Typed schemas for query parameters Nest documents as plain strings. */
const QUERY_SCHEMAS: Record<string, Schema> = {
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  sort: { type: 'string', enum: ['asc', 'desc'] },
  min_offset: { type: 'integer', minimum: 0 },
  wait_for_completion: { type: 'integer', minimum: 0, maximum: 300 },
  sse: bool,
};

const ACTIONS: Record<string, [string, string]> = {
  get: ['List', 'Read'],
  post: ['Create', 'Create'],
  patch: ['Update', 'Update'],
  put: ['Set', 'Set'],
  delete: ['Delete all', 'Delete'],
};

const article = (word: string): string => (/^[aeiou]/i.test(word) ? 'an' : 'a');
const words = (component: string): string => component.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

function successSchema(method: string, component: string, endsWithParam: boolean, answersWithBody = false): Schema | undefined {
  // A DELETE answers 204 without a body, unless its route declares a 200 (a revoked key comes back as it now is).
  if (method === 'delete') return answersWithBody ? ref(component) : undefined;
  if (['Budget', 'Workspace', 'SessionToken'].includes(component)) return ref(component);
  if (component === 'ContextVariable' && method === 'get' && endsWithParam) return ref('ContextVariableReadResult');
  if (method === 'get' && !endsWithParam && !['Usage', 'Health'].includes(component)) {
    return ['Session', 'Customer'].includes(component) ? { oneOf: [listOf(component), page(component)] } : listOf(component);
  }
  return ref(component);
}

export function describeOperations(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  components.schemas = { ...SCHEMAS, ...(components.schemas ?? {}) };
  for (const [path, item] of Object.entries(document.paths)) {
    const resource = RESOURCES.find(([pattern]) => pattern.test(path));
    const [tag, component] = resource ? [resource[1], resource[2]] : [path.split('/')[1] ?? 'other', 'HTTPError'];
    const endsWithParam = /\}$/.test(path);
    for (const [method, raw] of Object.entries(item as Record<string, Operation>)) {
      if (!ACTIONS[method]) continue;
      const operation = raw;
      const headers = HEADERS[`${method.toUpperCase()} ${path}`];
      if (headers)
        operation.parameters = [
          ...(operation.parameters ?? []),
          ...headers.map((header) => ({ ...header, schema: { ...(header['schema'] as Schema) } })),
        ];
      operation.tags = [tag];
      const [plural, single] = ACTIONS[method];
      operation.summary ??=
        SUMMARIES[`${method.toUpperCase()} ${path}`] ??
        (endsWithParam ? `${single} ${article(words(component))} ${words(component)}` : `${plural} ${words(component)}s`);
      const responses = (operation.responses ??= {});
      const success =
        Object.keys(responses).find((code) => code.startsWith('2')) ?? (method === 'post' ? '201' : method === 'delete' ? '204' : '200');
      const schema = successSchema(method, component, endsWithParam, success === '200');
      responses[success] =
        component === 'ChatPage'
          ? { description: 'HTML page', content: { 'text/html': { schema: str } } }
          : schema
            ? {
                description: 'Success',
                content: {
                  'application/json': { schema },
                  ...(path.endsWith('/events') && method === 'get' ? { 'text/event-stream': { schema: str } } : {}),
                },
              }
            : { description: 'Done (no content)' };
      responses['422'] = {
        description: 'A field or parameter breaks a rule (loc names it)',
        content: { 'application/json': { schema: ref('ValidationError') } },
      };
      if (path.includes('{'))
        responses['404'] = { description: 'Unknown resource', content: { 'application/json': { schema: ref('HTTPError') } } };
      if (operation.requestBody)
        responses['400'] = {
          description: 'The body is not valid JSON',
          content: { 'application/json': { schema: ref('ValidationError') } },
        };
      if ((path === '/sessions/{sessionId}/events' && method === 'post') || (path === '/sessions/{sessionId}' && method === 'patch')) {
        responses['409'] = {
          description: 'The session has ended, or its agent is archived',
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
      }
      if ((path === '/sessions' && method === 'post') || (path === '/agents/{agentId}' && method === 'patch')) {
        responses['409'] = {
          description: 'The agent is not active (new sessions), or archived (changes)',
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
      }
      // The auth guard (ADR 0018, docs/security.md): probes and the API description are public.
      if (!['health', 'chat'].includes(tag) && !/^\/(readyz|metrics)/.test(path)) {
        responses['401'] ??= {
          description: 'No valid API key or session token (Authorization: Bearer <key>)',
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
        responses['403'] ??= {
          description: "The key's role (or the session token) may not do this",
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
        responses['429'] ??= {
          description: "Rate limit reached; retry after the retry-after header's seconds",
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
      }
      if (path === '/sessions/{sessionId}/events' && method === 'get') {
        responses['504'] = {
          description: 'No matching event within wait_for_data',
          content: { 'application/json': { schema: ref('HTTPError') } },
        };
        operation.parameters = [...(operation.parameters ?? []).filter((p) => p['in'] !== 'query'), ...EVENTS_QUERY];
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter['in'] !== 'query') continue;
        parameter['required'] = false;
        const known = QUERY_SCHEMAS[parameter['name'] as string];
        if (known) parameter['schema'] = known;
      }
    }
  }
  document.tags = [
    ...new Set(
      Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, Operation>).flatMap((op) => op.tags ?? [])),
    ),
  ]
    .sort()
    .map((name) => ({ name }));
}
