import { PatchOf, IsOptional, IsString, Matches, ValidateIf } from '@tenet/platform-runtime/validation';

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const AGENT_RULE = { message: 'agent_id must be 1-64 characters of [A-Za-z0-9_-]' };
/** Platform ids are the platform's own strings (Slack `T0123`, Telegram `-100123`, phone numbers): visible characters only. */
const MATCH_PATTERN = /^[\x21-\x7e]{1,200}$/;
const rule = (field: string): { message: string } => ({
  message: `${field} must be 1-200 visible ASCII characters (or null to clear it on PATCH)`,
});
const CHANNEL_RULE = { message: 'channel must be 1-64 characters of [a-z0-9_-], e.g. telegram, slack, whatsapp, webhook, widget' };
const CHANNEL_PATTERN = /^[a-z0-9_-]{1,64}$/;
/** Given, it must pass its rules; left out it is unset (on PATCH: `null` clears it). */
const Given = (): PropertyDecorator => ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null);

/** A binding (docs/data-model.md#bindings): agent_id plus at least one of channel, account_id, peer_id, guild_id, team_id. */
export class BindingCreationDto {
  @IsString(AGENT_RULE) @Matches(ID_PATTERN, AGENT_RULE) agent_id!: string;
  @Given() @IsString(CHANNEL_RULE) @Matches(CHANNEL_PATTERN, CHANNEL_RULE) channel?: string;
  @Given() @IsString(rule('account_id')) @Matches(MATCH_PATTERN, rule('account_id')) account_id?: string;
  @Given() @IsString(rule('peer_id')) @Matches(MATCH_PATTERN, rule('peer_id')) peer_id?: string;
  @Given() @IsString(rule('guild_id')) @Matches(MATCH_PATTERN, rule('guild_id')) guild_id?: string;
  @Given() @IsString(rule('team_id')) @Matches(MATCH_PATTERN, rule('team_id')) team_id?: string;
}

/** The same rules as creation (held to them by the edge, PatchOf); `null` clears a match field (the result must still set one). */
@PatchOf(BindingCreationDto, { clears: ['channel', 'account_id', 'peer_id', 'guild_id', 'team_id'] })
export class BindingUpdateDto {
  @IsOptional() @IsString(AGENT_RULE) @Matches(ID_PATTERN, AGENT_RULE) agent_id?: string;
  @Given() @IsString(CHANNEL_RULE) @Matches(CHANNEL_PATTERN, CHANNEL_RULE) channel?: string | null;
  @Given() @IsString(rule('account_id')) @Matches(MATCH_PATTERN, rule('account_id')) account_id?: string | null;
  @Given() @IsString(rule('peer_id')) @Matches(MATCH_PATTERN, rule('peer_id')) peer_id?: string | null;
  @Given() @IsString(rule('guild_id')) @Matches(MATCH_PATTERN, rule('guild_id')) guild_id?: string | null;
  @Given() @IsString(rule('team_id')) @Matches(MATCH_PATTERN, rule('team_id')) team_id?: string | null;
}

export class DefaultAgentDto {
  @IsString(AGENT_RULE) @Matches(ID_PATTERN, AGENT_RULE) agent_id!: string;
}

export class ResolveQueryDto {
  @IsString(CHANNEL_RULE) @Matches(CHANNEL_PATTERN, CHANNEL_RULE) channel!: string;
  @IsOptional() @IsString(rule('account_id')) @Matches(MATCH_PATTERN, rule('account_id')) account_id?: string;
  @IsOptional() @IsString(rule('peer_id')) @Matches(MATCH_PATTERN, rule('peer_id')) peer_id?: string;
  @IsOptional() @IsString(rule('guild_id')) @Matches(MATCH_PATTERN, rule('guild_id')) guild_id?: string;
  @IsOptional() @IsString(rule('team_id')) @Matches(MATCH_PATTERN, rule('team_id')) team_id?: string;
}

export interface BindingView {
  id: string;
  workspace_id: string;
  agent_id: string;
  channel: string | null;
  account_id: string | null;
  peer_id: string | null;
  guild_id: string | null;
  team_id: string | null;
  creation_utc: string;
}
