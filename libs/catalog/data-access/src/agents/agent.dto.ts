import { Type } from 'class-transformer';
import { COMPOSITION_MODES } from '@tenet/matching-domain';
import { BUDGET_PERIODS, EVALUATIONS_USAGE_ID } from '@tenet/metering-domain';
import { AgentBudgetDto, BUDGET_ACTIONS, ID_PATTERN, IsOmittable } from '@tenet/edge';
import { TagsPatchDto } from '../tags/tag.dto.js';
import {
  PatchOf,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  NotEquals,
  ValidateNested,
  JSONSchema,
} from '@tenet/platform-runtime/validation';
import type { IntentSettings } from '@tenet/intents-domain';

/** The budget DTOs are shared with workspaces (the edge), which hold a budget too. */
export { AgentBudgetDto, BudgetLimitDto, BUDGET_ACTIONS } from '@tenet/edge';

/** Parlant's `CompositionModeDTO` values (src/parlant/api/common.py), as the matching domain defines them. */
export { COMPOSITION_MODES };

/** Parlant's `MessageOutputModeDTO` values; an agent stored before `stream` was refused may still show it. */
export const MESSAGE_OUTPUT_MODES = ['block', 'stream'] as const;
/**
 * What an agent may be set to: Tenet composes each reply in one model call and appends it to the log whole, so there
 * are no partial messages to stream; `stream` is refused rather than stored without effect.
 */
const OUTPUT_MODE_RULE = {
  message: "message_output_mode must be 'block': Tenet appends every reply whole ('stream', Parlant's partial messages, is not supported)",
};

/** Parlant's reply when no canned response fits (src/parlant/core/engines/alpha/canned_response_generator.py `DEFAULT_NO_MATCH_CANREP`). */
export { DEFAULT_NO_MATCH_MESSAGE } from '@tenet/matching-domain';

/** The agent's `config` (docs/data-model.md#agents), a Tenet extension next to Parlant's fields. */
export class AgentConfigDto {
  @JSONSchema({
    description: "How many earlier messages a turn gives the model, up to 1000 (the session's config.max_messages narrows it).",
  })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_history_length?: number;
  @JSONSchema({
    description:
      "Sampling temperature of the agent's replies (a retry samples 0.4 warmer). Guideline matching samples at matching.temperatures.",
  })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number;
  @JSONSchema({ description: "Upper bound on the output tokens of one reply (the compose call's max tokens)." })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(100_000)
  max_tokens?: number;
  @IsOmittable() @IsInt() @Min(1) @Max(300) tool_timeout_secs?: number;
  @JSONSchema({
    description:
      "After each customer message (unless the session's config.auto_extract says otherwise), extract every context variable with an extraction_prompt (in the agent's scope) and the customer's facts in ONE LLM call; " +
      'values are checked against data_type and validation and stored for the customer with confidence, source_message_id and extracted_at (for the shared guest customer: under the key session:<session id>, seen by that session only; its facts are not stored).',
  })
  @IsOmittable()
  @IsBoolean()
  auto_extract_context?: boolean;
  @IsOmittable() @IsBoolean() enable_journeys?: boolean;
}

export const defaultAgentConfig: Required<AgentConfigDto> = {
  max_history_length: 50,
  temperature: 0.7,
  max_tokens: 2048,
  tool_timeout_secs: 30,
  auto_extract_context: false,
  enable_journeys: true,
};

/** Tenet's matching settings (docs/adr/0008): threshold and top N (docs/data-model.md#matching), and the cost controls. */
export class AgentMatchingDto {
  @IsOmittable() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) threshold?: number;
  @IsOmittable() @IsInt() @Min(1) @Max(50) top_n?: number;
  @IsOmittable() @IsInt() @Min(1) @Max(1000) prefilter_k?: number;
  @IsOmittable() @IsInt() @Min(500) @Max(200_000) max_batch_tokens?: number;
  @IsOmittable() @IsInt() @Min(1) @Max(3) max_batches?: number;
  /** The temperature of each matching call, then (optional) that of its one repair when the answer broke the schema. */
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1, { message: "matching.temperatures must hold 1 or 2 numbers: the call's temperature, then the repair's" })
  @ArrayMaxSize(2, { message: "matching.temperatures must hold 1 or 2 numbers: the call's temperature, then the repair's" })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  @Min(0, { each: true })
  @Max(2, { each: true })
  temperatures?: number[];
}

/** Retrieval settings `max_results` / `threshold` and the sources the agent recalls from (ADR 0030, docs/data-model.md#retrieval). */
export class AgentRetrievalDto {
  @JSONSchema({ description: 'At most this many knowledge chunks are recalled per turn (1-20, default 5).' })
  @IsOmittable()
  @IsInt({ message: 'retrieval.max_results must be an integer from 1 to 20' })
  @Min(1, { message: 'retrieval.max_results must be an integer from 1 to 20' })
  @Max(20, { message: 'retrieval.max_results must be an integer from 1 to 20' })
  max_results?: number;
  @JSONSchema({ description: 'The fused relevance score (0-1) a chunk needs to be recalled and cited (default 0.5).' })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'retrieval.threshold must be a number from 0 to 1' })
  @Min(0, { message: 'retrieval.threshold must be a number from 0 to 1' })
  @Max(1, { message: 'retrieval.threshold must be a number from 0 to 1' })
  threshold?: number;
  @JSONSchema({
    description:
      'Ids of the knowledge sources the agent recalls from; empty (default): every source it may read. An id naming no source matches nothing.',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100, { message: 'retrieval.sources holds at most 100 source ids' })
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, message: 'retrieval.sources items must be 1-64 characters of [A-Za-z0-9_-]' })
  sources?: string[];
}

/** Intent settings (ADR 0031): when the agent asks which intent the customer means, and its fallback reply. */
export class AgentIntentsDto {
  @JSONSchema({ description: 'Below this confidence of the best intent the reply asks which one the customer means (default 0.5).' })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'intents.clarify_below must be a number from 0 to 1' })
  @Min(0, { message: 'intents.clarify_below must be a number from 0 to 1' })
  @Max(1, { message: 'intents.clarify_below must be a number from 0 to 1' })
  clarify_below?: number;
  @JSONSchema({
    description: 'When the best two intents are this close (or closer), the reply asks which one the customer means (default 0.1).',
  })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'intents.margin must be a number from 0 to 1' })
  @Min(0, { message: 'intents.margin must be a number from 0 to 1' })
  @Max(1, { message: 'intents.margin must be a number from 0 to 1' })
  margin?: number;
  @JSONSchema({ description: "The reply when a message is none of the agent's intents and no guideline applies." })
  @IsOmittable()
  @IsString({ message: 'intents.fallback must be 1-1000 characters' })
  @Length(1, 1_000, { message: 'intents.fallback must be 1-1000 characters' })
  fallback?: string;
}

export const defaultAgentMatching: Required<AgentMatchingDto> = {
  threshold: 0.3,
  top_n: 3,
  prefilter_k: 40,
  max_batch_tokens: 12_000,
  max_batches: 3,
  temperatures: [0, 0.3],
};

/** A tool's `retry_config` (docs/data-model.md#tools). */
export class ToolRetryConfigDto {
  @IsInt() @Min(1) @Max(10) max_attempts!: number;
  @IsInt() @Min(10) @Max(60_000) delay_ms!: number;
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(1) @Max(10) backoff_multiplier!: number;
}

/**
 * A tool defined on the agent (docs/data-model.md#tools): `parameters` must compile as a JSON Schema of type
 * "object", checked by the repository. Names are unique per agent.
 */
export class ToolDefinitionDto {
  @IsString()
  @Length(1, 50, { message: 'tools[].name must be 1-50 characters' })
  @Matches(/^[a-zA-Z][a-zA-Z0-9_]*$/, { message: 'tools[].name must match ^[a-zA-Z][a-zA-Z0-9_]*$' })
  name!: string;
  @IsString() @Length(1, 500, { message: 'tools[].description must be 1-500 characters' }) description!: string;
  @IsObject({ message: 'tools[].parameters must be a JSON Schema object' }) parameters!: Record<string, unknown>;
  @IsOmittable() @IsInt() @Min(1) @Max(300) timeout_secs?: number;
  @IsOmittable() @IsBoolean() allow_failure?: boolean;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ToolRetryConfigDto) retry_config?: ToolRetryConfigDto | null;
  /** String values only (checked by the repository). */
  @IsOmittable() @IsObject() metadata?: Record<string, string>;
  /**
   * The registered tool service (`PUT /services/{name}`) whose tool of the same name runs this tool. A tool
   * without one has nowhere to run: the matcher may still pick it, and the turn reports it as not runnable.
   */
  @IsOmittable() @IsString() @Matches(ID_PATTERN, { message: 'tools[].service_name must name a registered service' }) service_name?: string;
}

/** A tool as the agent view shows it: every field, defaults filled in. */
export interface ToolView {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  timeout_secs: number;
  allow_failure: boolean;
  retry_config: { max_attempts: number; delay_ms: number; backoff_multiplier: number } | null;
  metadata: Record<string, string>;
  /** The registered service it runs on; absent = not runnable (reported by the turn). */
  service_name?: string;
}

export const LLM_PROVIDERS = ['openai', 'anthropic', 'offline'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];
const PROVIDER_RULE = { message: `provider must be one of ${LLM_PROVIDERS.join(', ')}` };

/** The provider (and model) used when the agent's own fails (docs/data-model.md#fallback). */
export class FallbackProviderDto {
  @IsIn(LLM_PROVIDERS, PROVIDER_RULE) provider!: LlmProviderName;
  @IsOmittable() @IsString() @Length(1, 200, { message: 'model must be 1-200 characters' }) model?: string;
}

/** The agent's own provider and model (Tenet extension; absent = the gateway's configured one). */
export class AgentLlmDto {
  @IsIn(LLM_PROVIDERS, PROVIDER_RULE) provider!: LlmProviderName;
  @IsOmittable() @IsString() @Length(1, 200, { message: 'model must be 1-200 characters' }) model?: string;
  /** Same as the agent's top-level `fallback`; accepted here too. */
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => FallbackProviderDto) fallback?: FallbackProviderDto;
}

/** Only active agents start new sessions; archived agents are read-only (docs/data-model.md#agents). */
export const AGENT_STATUSES = ['active', 'inactive', 'archived'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The agent's personality (docs/data-model.md#soul): document, tone, restrictions, forbidden topics, sent to the model in every call. */
export class AgentSoulDto {
  @JSONSchema({ description: 'The soul document: personality and standing instructions, up to 20000 characters.' })
  @IsOmittable()
  @IsString()
  @Length(1, 20_000, { message: 'soul.document must be 1-20000 characters' })
  document?: string;
  @JSONSchema({ description: 'Tone of voice, e.g. "warm, concise, no jargon".' })
  @IsOmittable()
  @IsString()
  @Length(1, 500, { message: 'soul.tone must be 1-500 characters' })
  tone?: string;
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(50, { message: 'soul.restrictions holds at most 50 items' })
  @IsString({ each: true })
  @Length(1, 500, { each: true, message: 'soul.restrictions items must be 1-500 characters' })
  restrictions?: string[];
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(50, { message: 'soul.forbidden_topics holds at most 50 items' })
  @IsString({ each: true })
  @Length(1, 200, { each: true, message: 'soul.forbidden_topics items must be 1-200 characters' })
  forbidden_topics?: string[];
}

const NAME_RULE = { message: 'name must be 1-100 characters' };
const DESCRIPTION_RULE = { message: 'description must be 1-10000 characters' };
const SYSTEM_PROMPT_RULE = { message: 'system_prompt must be 1-10000 characters' };
const NO_MATCH_RULE = { message: 'no_match_message must be 1-1000 characters' };
const FAILURE_REPLY_RULE = { message: 'failure_reply must be 1-1000 characters' };

/** Parlant's `AgentCreationParamsDTO` (src/parlant/api/agents.py) plus Tenet's fields (docs/data-model.md#agents). */
export class AgentCreationDto {
  @IsOmittable()
  @IsString()
  @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' })
  @NotEquals(EVALUATIONS_USAGE_ID, { message: `id ${EVALUATIONS_USAGE_ID} is reserved (the usage of evaluations)` })
  id?: string;
  @IsString(NAME_RULE) @Length(1, 100, NAME_RULE) name!: string;
  @IsOmittable() @IsString(DESCRIPTION_RULE) @Length(1, 10_000, DESCRIPTION_RULE) description?: string;
  /** The operator's standing instructions, sent with every call; Parlant puts the agent's instructions in `description`. */
  @IsOmittable() @IsString(SYSTEM_PROMPT_RULE) @Length(1, 10_000, SYSTEM_PROMPT_RULE) system_prompt?: string;
  @IsOmittable() @IsInt() @Min(1) @Max(100) max_engine_iterations?: number;
  @IsOmittable() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOmittable() @IsIn(['block'], OUTPUT_MODE_RULE) message_output_mode?: 'block';
  @IsOmittable() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentConfigDto) config?: AgentConfigDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentMatchingDto) matching?: AgentMatchingDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentRetrievalDto) retrieval?: AgentRetrievalDto;
  /** Intent settings (ADR 0031); PATCH merges field by field. */
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentIntentsDto) intents?: AgentIntentsDto;
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolDefinitionDto) tools?: ToolDefinitionDto[];
  /** `journeys`: ids of the journeys this agent follows (besides those scoped to it by tag); PATCH replaces the list. */
  @IsOmittable() @IsArray() @IsString({ each: true }) journeys?: string[];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentLlmDto) llm?: AgentLlmDto;
  /** The fallback provider (docs/data-model.md#fallback); `null` = none. */
  @IsOptional() @IsObject() @ValidateNested() @Type(() => FallbackProviderDto) fallback?: FallbackProviderDto | null;
  /** strict_canned's reply when no canned response fits. */
  @IsOmittable() @IsString(NO_MATCH_RULE) @Length(1, 1_000, NO_MATCH_RULE) no_match_message?: string;
  @JSONSchema({
    description:
      'Tenet extension: what the customer is told when a turn cannot complete (a tool failed, the provider is down after fallbacks, the deadline passed); sent as a message with data.error_type. Default: a short apology.',
  })
  @IsOmittable()
  @IsString(FAILURE_REPLY_RULE)
  @Length(1, 1_000, FAILURE_REPLY_RULE)
  failure_reply?: string;
  /** Token budgets (ADR 0019), checked before every LLM call; `null` (PATCH) removes them. */
  @IsOptional() @IsObject() @ValidateNested() @Type(() => AgentBudgetDto) budget?: AgentBudgetDto | null;
  @JSONSchema({
    description: 'Agent status: active (default); inactive: no new sessions, existing ones go on; archived: read-only, no turns.',
  })
  @IsOmittable()
  @IsIn(AGENT_STATUSES, { message: `status must be one of ${AGENT_STATUSES.join(', ')}` })
  status?: AgentStatus;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => AgentSoulDto) soul?: AgentSoulDto | null;
}

/**
 * Parlant's `AgentUpdateParamsDTO` (PATCH; tags as `{add, remove}`) plus Tenet's fields. `config` and
 * `matching` merge into the stored values; `tools` and `llm` replace them; `fallback: null` clears it.
 */
@PatchOf(AgentCreationDto, { differs: ['tags'] })
export class AgentUpdateDto {
  @IsOmittable() @IsString(NAME_RULE) @Length(1, 100, NAME_RULE) name?: string;
  @IsOmittable() @IsString(DESCRIPTION_RULE) @Length(1, 10_000, DESCRIPTION_RULE) description?: string;
  @IsOmittable() @IsString(SYSTEM_PROMPT_RULE) @Length(1, 10_000, SYSTEM_PROMPT_RULE) system_prompt?: string;
  @IsOmittable() @IsInt() @Min(1) @Max(100) max_engine_iterations?: number;
  @IsOmittable() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOmittable() @IsIn(['block'], OUTPUT_MODE_RULE) message_output_mode?: 'block';
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => TagsPatchDto) tags?: TagsPatchDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentConfigDto) config?: AgentConfigDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentMatchingDto) matching?: AgentMatchingDto;
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentRetrievalDto) retrieval?: AgentRetrievalDto;
  /** Intent settings (ADR 0031); PATCH merges field by field. */
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentIntentsDto) intents?: AgentIntentsDto;
  @IsOmittable() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolDefinitionDto) tools?: ToolDefinitionDto[];
  /** `journeys`: ids of the journeys this agent follows (besides those scoped to it by tag); PATCH replaces the list. */
  @IsOmittable() @IsArray() @IsString({ each: true }) journeys?: string[];
  @IsOmittable() @IsObject() @ValidateNested() @Type(() => AgentLlmDto) llm?: AgentLlmDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => FallbackProviderDto) fallback?: FallbackProviderDto | null;
  @IsOmittable() @IsString(NO_MATCH_RULE) @Length(1, 1_000, NO_MATCH_RULE) no_match_message?: string;
  @JSONSchema({
    description:
      'Tenet extension: what the customer is told when a turn cannot complete (a tool failed, the provider is down after fallbacks, the deadline passed); sent as a message with data.error_type. Default: a short apology.',
  })
  @IsOmittable()
  @IsString(FAILURE_REPLY_RULE)
  @Length(1, 1_000, FAILURE_REPLY_RULE)
  failure_reply?: string;
  /** Token budgets (ADR 0019), checked before every LLM call; `null` (PATCH) removes them. */
  @IsOptional() @IsObject() @ValidateNested() @Type(() => AgentBudgetDto) budget?: AgentBudgetDto | null;
  @JSONSchema({
    description: 'Agent status: active (default); inactive: no new sessions, existing ones go on; archived: read-only, no turns.',
  })
  @IsOmittable()
  @IsIn(AGENT_STATUSES, { message: `status must be one of ${AGENT_STATUSES.join(', ')}` })
  status?: AgentStatus;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => AgentSoulDto) soul?: AgentSoulDto | null;
}

/** The agent on the wire: Parlant's `AgentDTO` fields, then Tenet's, every default filled in. */
export interface AgentView {
  id: string;
  name: string;
  description?: string;
  system_prompt?: string;
  max_engine_iterations: number;
  composition_mode: (typeof COMPOSITION_MODES)[number];
  message_output_mode: (typeof MESSAGE_OUTPUT_MODES)[number];
  tags: string[];
  journeys: string[];
  config: Required<AgentConfigDto>;
  matching: Required<AgentMatchingDto>;
  retrieval: { max_results: number; threshold: number; sources: string[] };
  intents: IntentSettings;
  tools: ToolView[];
  /** The agent's own provider; its `fallback` mirrors the top-level one. */
  llm?: { provider: LlmProviderName; model?: string; fallback?: { provider: LlmProviderName; model?: string } };
  fallback: { provider: LlmProviderName; model?: string } | null;
  no_match_message: string;
  /** Tenet extension: the reply of a turn that cannot complete (default: DEFAULT_FAILURE_REPLY). */
  failure_reply: string;
  budget: {
    limits: { period: (typeof BUDGET_PERIODS)[number]; tokens?: number; cost_usd?: number }[];
    exhausted_message: string;
    on_exhausted: (typeof BUDGET_ACTIONS)[number];
  } | null;
  status: AgentStatus;
  soul: { document?: string; tone?: string; restrictions: string[]; forbidden_topics: string[] } | null;
  creation_utc: string;
  /** Tenet extension: when the agent was last changed (its creation time until a PATCH). */
  updated_at: string;
}
