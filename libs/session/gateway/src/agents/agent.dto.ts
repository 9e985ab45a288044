import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { ID_PATTERN } from '../ids.js';

export const COMPOSITION_MODES = ['fluid', 'canned_fluid', 'composited_canned', 'strict_canned'] as const;
export const MESSAGE_OUTPUT_MODES = ['block', 'stream'] as const;

/** Seed 000 AgentConfig, accepted as a Tenet extension next to Parlant's fields. */
export class AgentConfigDto {
  @IsOptional() @IsInt() @Min(1) @Max(1000) max_history_length?: number;
  @IsOptional() @IsNumber() @Min(0) @Max(2) temperature?: number;
  @IsOptional() @IsInt() @Min(1) @Max(100_000) max_tokens?: number;
  @IsOptional() @IsInt() @Min(1) @Max(300) tool_timeout_secs?: number;
  @IsOptional() @IsBoolean() auto_extract_context?: boolean;
  @IsOptional() @IsBoolean() enable_journeys?: boolean;
}

/** Tenet's matching settings (docs/adr/0008): seed 000 §8 threshold and top N, and the cost controls. */
export class AgentMatchingDto {
  @IsOptional() @IsNumber() @Min(0) @Max(1) threshold?: number;
  @IsOptional() @IsInt() @Min(1) @Max(50) top_n?: number;
  @IsOptional() @IsInt() @Min(1) @Max(1000) prefilter_k?: number;
  @IsOptional() @IsInt() @Min(500) @Max(200_000) max_batch_tokens?: number;
  @IsOptional() @IsInt() @Min(1) @Max(3) max_batches?: number;
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(5) @IsNumber({}, { each: true }) @Min(0, { each: true }) @Max(2, { each: true }) temperatures?: number[];
}

export const defaultAgentMatching: Required<AgentMatchingDto> = { threshold: 0.3, top_n: 3, prefilter_k: 40, max_batch_tokens: 12_000, max_batches: 3, temperatures: [0, 0.3, 0.7] };

/** Seed 000 §3 RetryConfig (rules 5–7). */
export class ToolRetryConfigDto {
  @IsInt() @Min(1) @Max(10) max_attempts!: number;
  @IsInt() @Min(10) @Max(60_000) delay_ms!: number;
  @IsNumber() @Min(1) @Max(10) backoff_multiplier!: number;
}

/** Seed 000 §3 Tool without its handler (rules 1–4); `parameters` must be a JSON Schema of type "object". */
export class ToolDefinitionDto {
  @IsString() @Length(1, 50, { message: 'tools[].name must be 1-50 characters' }) @Matches(/^[a-zA-Z][a-zA-Z0-9_]*$/, { message: 'tools[].name must match ^[a-zA-Z][a-zA-Z0-9_]*$' }) name!: string;
  @IsString() @Length(1, 500, { message: 'tools[].description must be 1-500 characters' }) description!: string;
  @IsObject() parameters!: Record<string, unknown>;
  @IsOptional() @IsInt() @Min(1) @Max(300) timeout_secs?: number;
  @IsOptional() @IsBoolean() allow_failure?: boolean;
  @IsOptional() @ValidateNested() @Type(() => ToolRetryConfigDto) retry_config?: ToolRetryConfigDto;
  @IsOptional() @IsObject() metadata?: Record<string, string>;
}

export const LLM_PROVIDERS = ['openai', 'anthropic', 'offline'] as const;

export class FallbackProviderDto {
  @IsIn(LLM_PROVIDERS) provider!: (typeof LLM_PROVIDERS)[number];
  @IsOptional() @IsString() @Length(1, 200) model?: string;
}

/** Seed 002 AgentDef: the agent's model, and the fallback used when it fails. */
export class AgentLlmDto {
  @IsIn(LLM_PROVIDERS) provider!: (typeof LLM_PROVIDERS)[number];
  @IsOptional() @IsString() @Length(1, 200) model?: string;
  @IsOptional() @ValidateNested() @Type(() => FallbackProviderDto) fallback?: FallbackProviderDto;
}

export class AgentCreationDto {
  @IsOptional() @IsString() @Matches(ID_PATTERN, { message: 'id must be 1-64 characters of [A-Za-z0-9_-]' }) id?: string;
  @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name!: string;
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'description must be 1-10000 characters' }) description?: string;
  /** Seed 000 `system_prompt`; Parlant puts the agent's instructions in `description`. */
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'system_prompt must be 1-10000 characters' }) system_prompt?: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_engine_iterations?: number;
  @IsOptional() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOptional() @IsIn(MESSAGE_OUTPUT_MODES) message_output_mode?: (typeof MESSAGE_OUTPUT_MODES)[number];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOptional() @ValidateNested() @Type(() => AgentConfigDto) config?: AgentConfigDto;
  @IsOptional() @ValidateNested() @Type(() => AgentMatchingDto) matching?: AgentMatchingDto;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolDefinitionDto) tools?: ToolDefinitionDto[];
  @IsOptional() @ValidateNested() @Type(() => AgentLlmDto) llm?: AgentLlmDto;
  /** strict_canned's reply when no canned response fits. */
  @IsOptional() @IsString() @Length(1, 1_000, { message: 'no_match_message must be 1-1000 characters' }) no_match_message?: string;
}

export class AgentUpdateDto {
  @IsOptional() @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name?: string;
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'description must be 1-10000 characters' }) description?: string;
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'system_prompt must be 1-10000 characters' }) system_prompt?: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_engine_iterations?: number;
  @IsOptional() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOptional() @IsIn(MESSAGE_OUTPUT_MODES) message_output_mode?: (typeof MESSAGE_OUTPUT_MODES)[number];
  @IsOptional() @ValidateNested() @Type(() => AgentConfigDto) config?: AgentConfigDto;
  @IsOptional() @ValidateNested() @Type(() => AgentMatchingDto) matching?: AgentMatchingDto;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => ToolDefinitionDto) tools?: ToolDefinitionDto[];
  @IsOptional() @ValidateNested() @Type(() => AgentLlmDto) llm?: AgentLlmDto;
  /** strict_canned's reply when no canned response fits. */
  @IsOptional() @IsString() @Length(1, 1_000, { message: 'no_match_message must be 1-1000 characters' }) no_match_message?: string;
}

/** The agent as it travels on the wire (Parlant's fields plus the seed's extensions). */
export interface AgentView {
  id: string;
  name: string;
  description?: string;
  system_prompt?: string;
  max_engine_iterations: number;
  composition_mode: string;
  message_output_mode: string;
  tags: string[];
  config: Required<AgentConfigDto>;
  matching: Required<AgentMatchingDto>;
  tools: ToolDefinitionDto[];
  llm?: AgentLlmDto;
  no_match_message?: string;
  creation_utc: string;
}

export const defaultAgentConfig: Required<AgentConfigDto> = {
  max_history_length: 50,
  temperature: 0.7,
  max_tokens: 2048,
  tool_timeout_secs: 30,
  auto_extract_context: true,
  enable_journeys: true,
};
