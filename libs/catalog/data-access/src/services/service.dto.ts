import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from '@tenet/platform-runtime/validation';

/** Parlant's `ToolServiceKindDTO` (src/parlant/api/services.py). */
export const SERVICE_KINDS = ['openapi', 'sdk', 'mcp'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

const URL_RULE = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export class SdkServiceParamsDto {
  @IsUrl(URL_RULE, { message: 'url must be an http:// or https:// URL' }) url!: string;
}

/**
 * An MCP server at `url` (Streamable HTTP, or the legacy HTTP+SSE transport), or one the tool executor runs as a
 * child process and speaks to over stdio: `command`, `args`, `env` (ADR 0022: admin keys of the `default`
 * workspace only, and only commands the operator lists in TENET_TOOL_STDIO_COMMANDS).
 */
export class McpServiceParamsDto {
  @ValidateIf((params: McpServiceParamsDto) => params.command === undefined || params.url !== undefined)
  @IsUrl(URL_RULE, { message: 'url must be an http:// or https:// URL (or give command for a stdio server)' })
  url?: string;

  @IsOptional() @IsString() @Length(1, 1024, { message: 'command must be 1-1024 characters' }) command?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(64) @IsString({ each: true }) @MaxLength(4096, { each: true }) args?: string[];
  @IsOptional() @IsObject() env?: Record<string, string>;
}

export class OpenApiServiceParamsDto {
  /** The base URL the service's operations are called on. */
  @IsUrl(URL_RULE, { message: 'url must be an http:// or https:// URL' }) url!: string;
  /** Where the OpenAPI document is (JSON or YAML); the tool executor fetches it, so it must be a URL here. */
  @IsUrl(URL_RULE, { message: 'source must be an http:// or https:// URL of the OpenAPI document' }) source!: string;
}

/** Parlant's `ServiceUpdateParamsDTO`: `kind` and the parameters of that kind (the others must be absent). */
export class ServiceUpdateDto {
  @IsIn(SERVICE_KINDS, { message: `kind must be one of ${SERVICE_KINDS.join(', ')}` }) kind!: ServiceKind;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => SdkServiceParamsDto) sdk?: SdkServiceParamsDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => OpenApiServiceParamsDto) openapi?: OpenApiServiceParamsDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => McpServiceParamsDto) mcp?: McpServiceParamsDto;
  /**
   * Tenet extension: the credentials every request to the service carries (api_key, bearer, basic,
   * oauth2_client_credentials, headers), sealed with TENET_SECRETS_KEY, write-only (reads show the scheme and the
   * secret's last 4 characters at most). A PUT without `auth` registers the service without credentials.
   */
  @IsOptional() @IsObject() auth?: Record<string, unknown>;
}

/** A tool of a registered service, as the executor described it, with when it was registered. */
export interface StoredTool {
  name: string;
  description: string;
  parameters: { type: 'object'; properties?: Record<string, unknown>; required?: string[] } & Record<string, unknown>;
  creation_utc: string;
}

/** A registered tool service (stored; `source` only for openapi, `stdio` only for an MCP server run over stdio). */
export interface StoredService {
  name: string;
  kind: ServiceKind;
  url: string;
  source?: string;
  stdio?: { command: string; args?: string[]; env?: Record<string, string> };
  /** Sealed credentials (`@tenet/secrets`), never returned; `secret_hint` is what a read shows. */
  auth?: { scheme: string; sealed: string; owner: string; secret_hint?: string };
  /** OpenAPI operations that are not tools, with the reason. */
  skipped?: { operation: string; reason: string }[];
  tools: StoredTool[];
  creation_utc: string;
}

/** Parlant's `ToolParameterDTO`: a parameter's type, description and allowed values. */
export interface ToolParameterView {
  type: string;
  description?: string;
  enum?: unknown[];
}

/** Parlant's `ToolDTO`. */
export interface ToolView {
  creation_utc: string;
  name: string;
  description: string;
  parameters: Record<string, ToolParameterView>;
  required: string[];
}

/** Parlant's `ServiceDTO`: `tools` only when one service is read. */
export interface ServiceView {
  name: string;
  kind: ServiceKind;
  url: string;
  tools?: ToolView[];
  /** Tenet extension: which credentials the service has (never the secret). */
  auth?: { scheme: string; secret_hint?: string };
  /** Tenet extension (OpenAPI): the document's operations that are not offered as tools, and why. */
  skipped?: { operation: string; reason: string }[];
}
