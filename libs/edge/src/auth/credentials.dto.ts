import { IsIn, IsInt, IsString, Length, Matches, Max, Min, JSONSchema } from '@tenet/platform-runtime/validation';
import { IsOmittable } from '../http/validation.js';
import { ROLES, type Role } from './access-policy.js';

export class KeyCreationDto {
  @IsString() @Length(1, 100, { message: 'name must be 1-100 characters' }) name!: string;
  @JSONSchema({
    description: 'admin: definitions and keys; agent-runtime: sessions, events, customers; read-only: reads (usage, budgets).',
  })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role!: Role;
  @JSONSchema({
    description:
      'The workspace of the key. Only an admin of the default workspace may name another workspace (that creates it); others create keys in their own.',
  })
  @IsOmittable()
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9_-]{0,47}$/, { message: 'workspace_id must be 1-48 characters of [a-z0-9_-], starting with a letter or digit' })
  workspace_id?: string;
}

export class SessionTokenCreationDto {
  @JSONSchema({ description: 'Lifetime in seconds (60 to 86400, default 900).' })
  @IsOmittable()
  @IsInt()
  @Min(60, { message: 'ttl_secs must be 60-86400' })
  @Max(86_400, { message: 'ttl_secs must be 60-86400' })
  ttl_secs?: number;
}
