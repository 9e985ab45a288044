import { PatchOf, IsIn, IsObject, IsOptional, IsString, Length, Matches } from '@tenet/platform-runtime/validation';

export const CHANNEL_KINDS = ['webhook', 'telegram', 'slack', 'whatsapp', 'widget'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
const KIND_RULE = { message: `kind must be one of: ${CHANNEL_KINDS.join(', ')}` };
const NAME_RULE = { message: 'name must be 1-100 characters' };
const ACCOUNT_RULE = { message: 'account_id must be 1-200 visible ASCII characters' };

export class ChannelCreationDto {
  @IsString(KIND_RULE) @IsIn(CHANNEL_KINDS, KIND_RULE) kind!: ChannelKind;
  @IsString(NAME_RULE) @Length(1, 100, NAME_RULE) name!: string;
  /** The account this connection is on the platform (a bot, a workspace); Telegram derives it from the token. */
  @IsOptional() @IsString(ACCOUNT_RULE) @Matches(/^[\x21-\x7e]{1,200}$/, ACCOUNT_RULE) account_id?: string;
  /** Platform credentials (sealed at rest, never returned): fields by kind, see docs/channels.md. */
  @IsOptional() @IsObject({ message: 'credentials must be an object of strings' }) credentials?: Record<string, unknown>;
  @IsOptional() @IsObject({ message: 'settings must be an object of strings' }) settings?: Record<string, unknown>;
}

/** The same rules as creation (held to them by the edge, PatchOf); `credentials` given replace the stored ones as a whole, `settings` likewise. */
@PatchOf(ChannelCreationDto)
export class ChannelUpdateDto {
  @IsOptional() @IsString(NAME_RULE) @Length(1, 100, NAME_RULE) name?: string;
  @IsOptional() @IsString(ACCOUNT_RULE) @Matches(/^[\x21-\x7e]{1,200}$/, ACCOUNT_RULE) account_id?: string;
  @IsOptional() @IsObject({ message: 'credentials must be an object of strings' }) credentials?: Record<string, unknown>;
  @IsOptional() @IsObject({ message: 'settings must be an object of strings' }) settings?: Record<string, unknown>;
}

/** What is stored: the credentials only as one sealed string (`@tenet/secrets`) plus a hint per field. */
export interface StoredChannel {
  id: string;
  workspace_id: string;
  kind: ChannelKind;
  name: string;
  account_id: string | null;
  settings: Record<string, string>;
  sealed_credentials: string;
  credential_hints: Record<string, string>;
  creation_utc: string;
}

export interface ChannelView {
  id: string;
  kind: ChannelKind;
  name: string;
  account_id: string | null;
  settings: Record<string, string>;
  /** Never the secrets: which fields are set, each with its hint (the last characters of a long one). */
  credentials: Record<string, { set: true; hint: string }>;
  inbound_url: string;
  creation_utc: string;
}
