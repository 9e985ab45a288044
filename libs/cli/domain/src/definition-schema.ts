import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The agent definition file (`tenet apply -f`, `tenet export`): one YAML or JSON document per agent. This TypeBox
 * schema is the one source of truth: the CLI validates files with it, the committed JSON Schema
 * (apps/cli/schema/agent-definition.schema.json) is rendered from it, and the types below come from it.
 *
 * It checks the file's shape (which keys, which types, ids present). The server's field rules (lengths, ranges,
 * references) are not restated here: `tenet apply` checks every request body against the server's own published
 * request schemas (GET /openapi.json) before it writes anything (ADR 0026).
 */

const strict = { additionalProperties: false } as const;
/** A human-chosen id: it is the server id (the API accepts client-chosen ids) and must stay stable across edits. */
const Id = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Stable, human-chosen id; it becomes the server id.' });
const Strings = Type.Array(Type.String());
/** Extra tags besides the agent's own `agent:<id>`, which apply adds to every scoped resource. */
const Tags = Type.Array(Type.String(), { description: 'Tags besides agent:<agent id> (which apply adds itself).' });
const CompositionMode = Type.Union([
  Type.Literal('fluid'),
  Type.Literal('canned_fluid'),
  Type.Literal('composited_canned'),
  Type.Literal('strict_canned'),
]);
/** A value read from the environment when the file is applied: credentials and deployment-specific URLs. */
export const EnvReference = Type.Object(
  { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Name of the environment variable holding the value.' }) },
  strict,
);
const StringOrEnv = Type.Union([Type.String(), EnvReference]);

export const AgentSettings = Type.Object(
  {
    id: Id,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    system_prompt: Type.Optional(Type.String()),
    max_engine_iterations: Type.Optional(Type.Integer()),
    composition_mode: Type.Optional(CompositionMode),
    message_output_mode: Type.Optional(Type.Literal('block', { description: "Tenet appends every reply whole: 'stream' is refused" })),
    tags: Type.Optional(Tags),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'max_history_length, temperature, max_tokens, tool_timeout_secs, auto_extract_context, enable_journeys',
      }),
    ),
    matching: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'threshold, top_n, prefilter_k, max_batch_tokens, max_batches, temperatures',
      }),
    ),
    retrieval: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'max_results (1-20), threshold (0-1), sources (knowledge source ids)' }),
    ),
    intents: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Intent settings: clarify_below, margin, fallback (the intents themselves are listed under the top-level intents).',
      }),
    ),
    tools: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: 'Tools defined on the agent (name, description, parameters, service_name, …).',
      }),
    ),
    llm: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    fallback: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    no_match_message: Type.Optional(Type.String()),
    failure_reply: Type.Optional(
      Type.String({ description: 'What the customer is told when a turn cannot complete (sent with data.error_type).' }),
    ),
    budget: Type.Optional(
      Type.Union([
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'Token budgets: limits [{period, tokens | cost_usd}], exhausted_message, on_exhausted.',
        }),
        Type.Null(),
      ]),
    ),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('archived')])),
    soul: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    journeys: Type.Optional(
      Type.Array(Type.String(), { description: 'Ids of other journeys the agent follows (its own journeys below apply by tag).' }),
    ),
  },
  strict,
);

export const GuidelineEntry = Type.Object(
  {
    id: Id,
    condition: Type.String(),
    action: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    criticality: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    enabled: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Tags),
    composition_mode: Type.Optional(CompositionMode),
    track: Type.Optional(Type.Boolean()),
    labels: Type.Optional(Strings),
    priority: Type.Optional(Type.Integer()),
    tools: Type.Optional(Type.Array(Type.String(), { description: '<service>:<tool> names the guideline may call.' })),
    required_context: Type.Optional(Strings),
    journey_id: Type.Optional(Type.String()),
    journey_step: Type.Optional(Type.String()),
  },
  strict,
);

export const RelationshipEntry = Type.Object(
  {
    source: Type.String({ description: 'A guideline id of this file (or of the server).' }),
    target: Type.String({ description: 'A guideline id of this file (or of the server).' }),
    kind: Type.Union(
      ['entailment', 'priority', 'dependency', 'dependency_any', 'disambiguation', 'reevaluation', 'overlap'].map((k) => Type.Literal(k)),
    ),
  },
  strict,
);

const JourneyStep = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: Type.String({ description: 'chat, tool, fork or final' }),
    instruction: Type.Optional(Type.String()),
    tool: Type.Optional(Type.String()),
    required_context: Type.Optional(Strings),
    guidelines: Type.Optional(Strings),
  },
  strict,
);
const JourneyTransition = Type.Object(
  { from: Type.String(), to: Type.String(), condition: Type.Optional(Type.String()), priority: Type.Optional(Type.Integer()) },
  strict,
);

export const JourneyEntry = Type.Object(
  {
    id: Id,
    title: Type.String(),
    description: Type.String(),
    conditions: Type.Array(Type.String(), { description: 'Texts; each becomes a condition guideline of the journey.' }),
    tags: Type.Optional(Tags),
    composition_mode: Type.Optional(CompositionMode),
    labels: Type.Optional(Strings),
    priority: Type.Optional(Type.Integer()),
    steps: Type.Optional(Type.Array(JourneyStep)),
    transitions: Type.Optional(Type.Array(JourneyTransition)),
    initial_step: Type.Optional(Type.String()),
    timeouts: Type.Optional(
      Type.Object({ abandon_after_secs: Type.Optional(Type.Integer()), expire_after_secs: Type.Optional(Type.Integer()) }, strict),
    ),
    on_failure: Type.Optional(
      Type.Object(
        { action: Type.Union([Type.Literal('end'), Type.Literal('handoff'), Type.Literal('step')]), step: Type.Optional(Type.String()) },
        { ...strict, description: 'What a failed tool step leads to: end (default), handoff, or step (with the step to go on at).' },
      ),
    ),
  },
  strict,
);

export const ContextVariableEntry = Type.Object(
  {
    id: Id,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    tool_id: Type.Optional(Type.Object({ service_name: Type.String(), tool_name: Type.String() }, strict)),
    freshness_rules: Type.Optional(Type.String()),
    tags: Type.Optional(Tags),
    data_type: Type.Optional(Type.String()),
    extraction_prompt: Type.Optional(Type.String()),
    required: Type.Optional(
      Type.Boolean({
        description:
          'While the customer has no value for it, the agent asks for it in every reply; guidelines listing it in required_context wait for it.',
      }),
    ),
    validation: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    default_value: Type.Optional(Type.Unknown()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  strict,
);

export const CannedResponseEntry = Type.Object(
  {
    id: Id,
    value: Type.String(),
    fields: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()), examples: Type.Optional(Strings) }, strict)),
    ),
    tags: Type.Optional(Tags),
    signals: Type.Optional(Strings),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    field_dependencies: Type.Optional(Type.Array(Type.String(), { description: 'Set at creation only.' })),
  },
  strict,
);

export const CapabilityEntry = Type.Object(
  { id: Id, title: Type.String(), description: Type.String(), signals: Strings, tags: Type.Optional(Tags) },
  strict,
);

export const TermEntry = Type.Object(
  { id: Id, name: Type.String(), description: Type.String(), synonyms: Type.Optional(Strings), tags: Type.Optional(Tags) },
  strict,
);

/** What customers come for (`POST /intents`, ADR 0031): classified in the turn's matching call. */
export const IntentEntry = Type.Object(
  {
    id: Id,
    name: Type.String({
      description: 'An identifier ([A-Za-z][A-Za-z0-9_]*, at most 64) unique per agent; UNKNOWN and CLARIFICATION_NEEDED are reserved.',
    }),
    description: Type.Optional(Type.String({ description: 'In customer words: a clarification question offers it.' })),
    examples: Type.Optional(Type.Array(Type.String(), { description: 'Customer messages that mean this intent.' })),
    keywords: Type.Optional(Type.Array(Type.String(), { description: 'Words or phrases that point to this intent.' })),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'A JSON Schema of type object: the parameters extracted from the conversation.',
      }),
    ),
    tool: Type.Optional(
      Type.String({
        description:
          "What a recognised intent runs: a tool of the agent, or a registered service's <service>:<tool> (not with journey_id).",
      }),
    ),
    journey_id: Type.Optional(Type.String({ description: 'What a recognised intent starts: a journey (not with tool).' })),
    tags: Type.Optional(Tags),
  },
  strict,
);

/** A secret is only ever named by its environment variable: a definition file never holds one. */
const Secret = Type.Union([EnvReference], {
  description: 'The environment variable holding the secret, as { env: NAME }; a secret is never written in the file.',
});

/**
 * The credentials of a tool service (`auth` on PUT /services/{name}), one object per scheme; the secret field of
 * each is an environment reference. The server keeps them sealed and never returns them.
 */
export const ToolServiceAuth = Type.Union(
  [
    Type.Object(
      {
        scheme: Type.Literal('api_key'),
        in: Type.Union([Type.Literal('header'), Type.Literal('query'), Type.Literal('cookie')]),
        name: Type.String({ minLength: 1 }),
        value: Secret,
      },
      strict,
    ),
    Type.Object({ scheme: Type.Literal('bearer'), token: Secret }, strict),
    Type.Object({ scheme: Type.Literal('basic'), username: StringOrEnv, password: Secret }, strict),
    Type.Object(
      {
        scheme: Type.Literal('oauth2_client_credentials'),
        token_url: StringOrEnv,
        client_id: StringOrEnv,
        client_secret: Secret,
        scope: Type.Optional(Type.String()),
      },
      strict,
    ),
    Type.Object(
      {
        scheme: Type.Literal('headers'),
        headers: Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$" }), Secret, { minProperties: 1 }),
      },
      strict,
    ),
  ],
  {
    description:
      "The credentials the service is called with, secrets as { env: NAME }. Absent: the file does not manage the service's credentials (whatever the server holds is kept; apply refuses to re-register such a service without them).",
  },
);

export const ToolServiceEntry = Type.Object(
  {
    name: Id,
    kind: Type.Union([Type.Literal('openapi'), Type.Literal('sdk'), Type.Literal('mcp')]),
    url: Type.Optional(
      Type.Union([StringOrEnv], { description: 'Where the service is reached; required unless command (a stdio MCP server) is given.' }),
    ),
    source: Type.Optional(Type.Union([StringOrEnv], { description: 'openapi only: the URL of the OpenAPI document.' })),
    auth: Type.Optional(ToolServiceAuth),
    command: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'mcp only, instead of url: an MCP server the tool executor runs as a child process over stdio (default-workspace admins only; the operator lists the commands allowed in TENET_TOOL_STDIO_COMMANDS).',
      }),
    ),
    args: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "The command's arguments. Sent when the service is registered; the API does not return them, so diff does not compare them.",
      }),
    ),
    env: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Secret, {
        minProperties: 1,
        description:
          "The command's environment, each value as { env: NAME } (the server seals it like credentials and never returns it). Absent: the file leaves the server's as it is.",
      }),
    ),
  },
  strict,
);

export const KnowledgeEntry = Type.Object(
  {
    id: Id,
    title: Type.String(),
    file: Type.String({ description: 'Path of the document, relative to this file.' }),
    format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('text'), Type.Literal('html'), Type.Literal('pdf')])),
    url: Type.Optional(Type.String()),
  },
  strict,
);

export const AgentDefinitionSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(1),
    agent: AgentSettings,
    guidelines: Type.Optional(Type.Array(GuidelineEntry)),
    relationships: Type.Optional(Type.Array(RelationshipEntry)),
    journeys: Type.Optional(Type.Array(JourneyEntry)),
    context_variables: Type.Optional(Type.Array(ContextVariableEntry)),
    canned_responses: Type.Optional(Type.Array(CannedResponseEntry)),
    capabilities: Type.Optional(Type.Array(CapabilityEntry)),
    terms: Type.Optional(Type.Array(TermEntry)),
    intents: Type.Optional(Type.Array(IntentEntry)),
    tool_services: Type.Optional(Type.Array(ToolServiceEntry)),
    knowledge: Type.Optional(Type.Array(KnowledgeEntry)),
  },
  {
    ...strict,
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Tenet agent definition',
    description: 'One agent and everything scoped to it, applied with `tenet apply -f`.',
  },
);

export type AgentDefinition = Static<typeof AgentDefinitionSchema>;
export type GuidelineEntryT = Static<typeof GuidelineEntry>;
export type RelationshipEntryT = Static<typeof RelationshipEntry>;
export type JourneyEntryT = Static<typeof JourneyEntry>;
export type IntentEntryT = Static<typeof IntentEntry>;
export type ToolServiceEntryT = Static<typeof ToolServiceEntry>;
export type KnowledgeEntryT = Static<typeof KnowledgeEntry>;
export type EnvReferenceT = Static<typeof EnvReference>;
export type ToolServiceAuthT = Static<typeof ToolServiceAuth>;

/** The committed JSON Schema: plain JSON (TypeBox's symbols dropped), stable key order. */
export const agentDefinitionJsonSchema = (): Record<string, unknown> =>
  JSON.parse(JSON.stringify(AgentDefinitionSchema as TSchema)) as Record<string, unknown>;
