import { createHash } from 'node:crypto';
import { TOOL_ERROR_CODES, type ToolServiceV1 } from '@tenet/contracts';
import { SecretOpenError, type SecretBox } from '@tenet/secrets';
import { ToolServiceError } from '../errors.js';
import type { GuardedFetch } from '../outbound/outbound.js';

/**
 * A tool service's credentials as the registrant gave them (the plaintext inside `ToolServiceV1.auth.sealed`):
 * - `api_key`: `value` sent as the header, query parameter or cookie `name` (an OpenAPI apiKey scheme);
 * - `bearer`: `Authorization: Bearer <token>` (OpenAPI http bearer; MCP servers' bearer auth);
 * - `basic`: `Authorization: Basic base64(username:password)` (OpenAPI http basic);
 * - `oauth2_client_credentials`: a token from `token_url` (client credentials grant), cached until it expires
 *   and fetched again on expiry or on a 401, sent as a bearer token;
 * - `headers`: fixed request headers (MCP servers that want e.g. `X-API-Key`).
 */
export type ToolCredentials =
  | { scheme: 'api_key'; in: 'header' | 'query' | 'cookie'; name: string; value: string }
  | { scheme: 'bearer'; token: string }
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'oauth2_client_credentials'; token_url: string; client_id: string; client_secret: string; scope?: string }
  | { scheme: 'headers'; headers: Record<string, string> }
  /** An MCP stdio server's environment (it often holds the server's own API keys): sealed like any credential. */
  | { scheme: 'env'; env: Record<string, string> };

/** What a request of the service carries: headers, query parameters and cookies. */
export interface AppliedCredentials {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: [string, string][];
  /** Every secret value, so that anything echoing one back (a result, an error) can be redacted. */
  secrets: string[];
}

const NONE: AppliedCredentials = { headers: {}, query: [], cookies: [], secrets: [] };
/** A token is fetched again this long before the expiry its endpoint announced. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * The executor's side of tool-service credentials: opens the sealed credentials with TENET_SECRETS_KEY (the
 * gateway sealed them; nothing else ever sees them in plaintext) and turns them into what each request carries.
 * OAuth2 tokens are cached per service and credentials, fetched once, refreshed on expiry or when the API
 * answers 401 (`invalidate`).
 */
export class ToolCredentialsProvider {
  private readonly tokens = new Map<string, { token: Promise<{ value: string; expiresAt: number }> }>();
  /** Tokens issued per service (the latest few), so that a result echoing one can be redacted. */
  private readonly issued = new Map<string, string[]>();

  constructor(
    private readonly box: SecretBox | undefined,
    private readonly fetch: GuardedFetch,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The opened credentials of a service, or undefined when it has none. */
  credentialsOf(service: ToolServiceV1): ToolCredentials | undefined {
    if (!service.auth) return undefined;
    if (!this.box)
      throw new ToolServiceError(
        TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
        `${service.name} has stored credentials but TENET_SECRETS_KEY is not set on this tool executor`,
      );
    try {
      return JSON.parse(this.box.open(service.auth.sealed, service.auth.owner)) as ToolCredentials;
    } catch (error) {
      if (error instanceof SecretOpenError)
        throw new ToolServiceError(
          TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
          `the credentials of ${service.name} cannot be opened: ${error.message}`,
        );
      throw error;
    }
  }

  async apply(service: ToolServiceV1, signal?: AbortSignal): Promise<AppliedCredentials> {
    const credentials = this.credentialsOf(service);
    if (!credentials) return NONE;
    switch (credentials.scheme) {
      case 'api_key': {
        const applied: AppliedCredentials = { headers: {}, query: [], cookies: [], secrets: [credentials.value] };
        if (credentials.in === 'header') applied.headers[credentials.name] = credentials.value;
        else if (credentials.in === 'query') applied.query.push([credentials.name, credentials.value]);
        else applied.cookies.push([credentials.name, credentials.value]);
        return applied;
      }
      case 'bearer':
        return { headers: { authorization: `Bearer ${credentials.token}` }, query: [], cookies: [], secrets: [credentials.token] };
      case 'basic': {
        const encoded = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
        return { headers: { authorization: `Basic ${encoded}` }, query: [], cookies: [], secrets: [credentials.password, encoded] };
      }
      case 'headers':
        return { headers: { ...credentials.headers }, query: [], cookies: [], secrets: Object.values(credentials.headers) };
      case 'env':
        return { headers: {}, query: [], cookies: [], secrets: Object.values(credentials.env) };
      case 'oauth2_client_credentials': {
        const token = await this.token(service, credentials, signal);
        return { headers: { authorization: `Bearer ${token}` }, query: [], cookies: [], secrets: [token, credentials.client_secret] };
      }
      default: {
        const unknown: { scheme?: unknown } = credentials;
        throw new ToolServiceError(
          TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
          `${service.name} has credentials of an unknown scheme ${String(unknown.scheme)}`,
        );
      }
    }
  }

  /** Every secret of the service known here (its credentials, tokens issued for it): what redaction masks. */
  knownSecrets(service: ToolServiceV1): string[] {
    const credentials = this.credentialsOf(service);
    if (!credentials) return [];
    switch (credentials.scheme) {
      case 'api_key':
        return [credentials.value];
      case 'bearer':
        return [credentials.token];
      case 'basic':
        return [credentials.password, Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')];
      case 'headers':
        return Object.values(credentials.headers);
      case 'env':
        return Object.values(credentials.env);
      case 'oauth2_client_credentials':
        return [credentials.client_secret, ...(this.issued.get(this.tokenKey(service)) ?? [])];
      default:
        return [];
    }
  }

  /** The API refused the token (401): the next request fetches a new one. */
  invalidate(service: ToolServiceV1): void {
    if (service.auth) this.tokens.delete(this.tokenKey(service));
  }

  private tokenKey(service: ToolServiceV1): string {
    return `${service.name}\u0000${createHash('sha256')
      .update(service.auth?.sealed ?? '')
      .digest('hex')}`;
  }

  private async token(
    service: ToolServiceV1,
    credentials: Extract<ToolCredentials, { scheme: 'oauth2_client_credentials' }>,
    signal?: AbortSignal,
  ): Promise<string> {
    const key = this.tokenKey(service);
    const cached = this.tokens.get(key);
    if (cached) {
      const token = await cached.token.catch(() => undefined);
      if (token && token.expiresAt > this.clock()) return token.value;
      if (this.tokens.get(key) === cached) this.tokens.delete(key);
    }
    // Concurrent calls share one token request.
    const pending = this.fetchToken(service, credentials, signal);
    this.tokens.set(key, { token: pending });
    try {
      return (await pending).value;
    } catch (error) {
      if (this.tokens.get(key)?.token === pending) this.tokens.delete(key);
      throw error;
    }
  }

  private async fetchToken(
    service: ToolServiceV1,
    credentials: Extract<ToolCredentials, { scheme: 'oauth2_client_credentials' }>,
    signal?: AbortSignal,
  ): Promise<{ value: string; expiresAt: number }> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', ...(credentials.scope ? { scope: credentials.scope } : {}) });
    const basic = Buffer.from(`${encodeURIComponent(credentials.client_id)}:${encodeURIComponent(credentials.client_secret)}`).toString(
      'base64',
    );
    let response: Response;
    try {
      response = await this.fetch(credentials.token_url, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: signal ?? AbortSignal.timeout(15_000),
      });
    } catch (error) {
      if (error instanceof ToolServiceError) throw error;
      throw new ToolServiceError(
        TOOL_ERROR_CODES.SERVICE_UNREACHABLE,
        `the OAuth2 token endpoint of ${service.name} could not be reached`,
        true,
      );
    }
    const text = await response.text().catch(() => '');
    if (!response.ok)
      throw new ToolServiceError(
        TOOL_ERROR_CODES.HTTP_ERROR,
        `the OAuth2 token endpoint of ${service.name} answered HTTP ${response.status}`,
        response.status >= 500,
      );
    let token: { access_token?: unknown; expires_in?: unknown };
    try {
      token = JSON.parse(text) as typeof token;
    } catch {
      token = {};
    }
    if (typeof token.access_token !== 'string' || token.access_token === '')
      throw new ToolServiceError(
        TOOL_ERROR_CODES.HTTP_ERROR,
        `the OAuth2 token endpoint of ${service.name} answered without an access_token`,
      );
    const lifetimeMs = typeof token.expires_in === 'number' && token.expires_in > 0 ? token.expires_in * 1000 : 3600_000;
    const key = this.tokenKey(service);
    this.issued.set(key, [token.access_token, ...(this.issued.get(key) ?? [])].slice(0, 4));
    return { value: token.access_token, expiresAt: this.clock() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) };
  }
}
