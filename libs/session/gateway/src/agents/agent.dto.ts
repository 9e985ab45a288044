import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
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
}

export class AgentUpdateDto {
  @IsOptional() @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name?: string;
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'description must be 1-10000 characters' }) description?: string;
  @IsOptional() @IsString() @Length(1, 10_000, { message: 'system_prompt must be 1-10000 characters' }) system_prompt?: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_engine_iterations?: number;
  @IsOptional() @IsIn(COMPOSITION_MODES) composition_mode?: (typeof COMPOSITION_MODES)[number];
  @IsOptional() @IsIn(MESSAGE_OUTPUT_MODES) message_output_mode?: (typeof MESSAGE_OUTPUT_MODES)[number];
  @IsOptional() @ValidateNested() @Type(() => AgentConfigDto) config?: AgentConfigDto;
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
