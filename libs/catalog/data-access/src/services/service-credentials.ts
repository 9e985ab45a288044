import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { secretBoxFromEnv, secretHint, SecretsKeyError, type SecretBox } from '@tenet/secrets';
import { violation, type ValidationDetail } from '@tenet/edge';
import type { StoredService } from './service.dto.js';
import { ServicesRepository } from './services.repository.js';

/** The credential schemes `auth` accepts, and the fields each needs (strings; `scope` optional). */
const SCHEMES: Record<string, { secret: string; fields: readonly string[]; optional?: readonly string[] }> = {
  api_key: { secret: 'value', fields: ['in', 'name', 'value'] },
  bearer: { secret: 'token', fields: ['token'] },
  basic: { secret: 'password', fields: ['username', 'password'] },
  oauth2_client_credentials: { secret: 'client_secret', fields: ['token_url', 'client_id', 'client_secret'], optional: ['scope'] },
  headers: { secret: 'headers', fields: ['headers'] },
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Problems of an `auth` body, each naming its field and the rule. */
export function credentialProblems(auth: unknown): ValidationDetail[] {
  if (!isRecord(auth)) return [violation(['auth'], 'auth must be an object with a scheme', 'type_error.dict')];
  const scheme = typeof auth['scheme'] === 'string' ? SCHEMES[auth['scheme']] : undefined;
  if (!scheme) return [violation(['auth', 'scheme'], `auth.scheme must be one of ${Object.keys(SCHEMES).join(', ')}`, 'value_error')];
  const problems: ValidationDetail[] = [];
  for (const field of Object.keys(auth)) {
    if (field !== 'scheme' && !scheme.fields.includes(field) && !(scheme.optional ?? []).includes(field))
      problems.push(violation(['auth', field], `${field} is not a field of the ${String(auth['scheme'])} scheme`, 'value_error.extra'));
  }
  for (const field of scheme.fields) {
    const value = auth[field];
    if (field === 'headers') {
      if (
        !isRecord(value) ||
        Object.keys(value).length === 0 ||
        Object.entries(value).some(
          ([name, v]) => typeof v !== 'string' || v.length > 8192 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(name),
        )
      ) {
        problems.push(
          violation(['auth', 'headers'], 'headers must map header names to string values (at most 8192 characters)', 'value_error'),
        );
      }
    } else if (typeof value !== 'string' || value.length === 0 || value.length > 8192)
      problems.push(violation(['auth', field], `${field} must be a non-empty string of at most 8192 characters`, 'value_error'));
  }
  if (auth['scheme'] === 'api_key' && !['header', 'query', 'cookie'].includes(String(auth['in'])))
    problems.push(violation(['auth', 'in'], 'in must be header, query or cookie', 'value_error'));
  if (
    auth['scheme'] === 'oauth2_client_credentials' &&
    typeof auth['token_url'] === 'string' &&
    !/^https?:\/\/\S+$/.test(auth['token_url'])
  )
    problems.push(violation(['auth', 'token_url'], 'token_url must be an http:// or https:// URL', 'value_error'));
  if (auth['scope'] !== undefined && typeof auth['scope'] !== 'string')
    problems.push(violation(['auth', 'scope'], 'scope must be a string', 'type_error.str'));
  return problems;
}

/** The record owner the credentials are sealed for (a sealed value copied to another service does not open there). */
export const credentialOwner = (name: string): string => `tool-service:${name}`;

/** Sealed credentials as stored: the scheme, the sealed JSON, and what a read may show (the secret's last 4 characters at most). */
export function sealCredentials(box: SecretBox, name: string, auth: Record<string, unknown>): NonNullable<StoredService['auth']> {
  const scheme = String(auth['scheme']);
  const secretField = SCHEMES[scheme]?.secret ?? '';
  const secret = auth[secretField];
  const owner = credentialOwner(name);
  return {
    scheme,
    sealed: box.seal(JSON.stringify(auth), owner),
    owner,
    ...(typeof secret === 'string' ? { secret_hint: secretHint(secret) } : {}),
  };
}

/**
 * A gateway holding sealed tool-service credentials without TENET_SECRETS_KEY (or with a key that opens none of
 * them) refuses to start, naming the variable, rather than failing every call of those services later.
 */
@Injectable()
export class ServiceCredentialsCheck implements OnApplicationBootstrap {
  constructor(private readonly services: ServicesRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    const withCredentials = (await this.services.list()).filter((service) => service.auth);
    if (withCredentials.length === 0) return;
    const box = secretBoxFromEnv(process.env);
    const names = withCredentials.map((service) => service.name).join(', ');
    if (!box)
      throw new SecretsKeyError(
        `TENET_SECRETS_KEY is not set, but tool services ${names} have stored credentials sealed with it: set TENET_SECRETS_KEY (and TENET_SECRETS_KEY_PREVIOUS during a rotation)`,
      );
    for (const service of withCredentials) {
      try {
        box.open(service.auth?.sealed ?? '', service.auth?.owner ?? '');
      } catch (error) {
        throw new SecretsKeyError(
          `the credentials of tool service ${service.name} do not open with TENET_SECRETS_KEY (or TENET_SECRETS_KEY_PREVIOUS): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}
