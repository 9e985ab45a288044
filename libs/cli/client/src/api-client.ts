import { readSettings } from '@tenet/config';

/** Where the CLI talks to and as whom: `TENET_URL`, `TENET_API_KEY` (or `TENET_API_KEY_<WORKSPACE>`), `--workspace`. */
export interface Connection {
  url: string;
  /** Where `/knowledge/…` is served when not by the gateway (start:distributed: the memory store, TENET_KNOWLEDGE_URL). */
  knowledgeUrl?: string;
  apiKey?: string;
  /** The workspace the caller means; checked against the key's (GET /workspace) before anything is written. */
  workspace?: string;
}

/** An error the CLI prints as it is (no stack): what went wrong and what to do about it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A 4xx/5xx answer of the API, with Parlant's `detail` (a string, or 422 items with `loc` and `msg`). */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly detail: unknown,
  ) {
    super(`${method} ${path} → ${status}: ${describeDetail(detail)}`);
  }
}

const describeDetail = (detail: unknown): string => {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? JSON.stringify(d)}`).join('; ');
  return JSON.stringify(detail);
};

/** The connection from the environment and options; `--workspace acme` prefers `TENET_API_KEY_ACME`. */
export function connectionFrom(env: NodeJS.ProcessEnv, options: { url?: string; workspace?: string }): Connection {
  const settings = readSettings(env, ['TENET_URL', 'TENET_API_KEY', 'TENET_KNOWLEDGE_URL']);
  const url = (options.url ?? settings.TENET_URL).replace(/\/+$/, '');
  const workspaceKey = options.workspace ? env[`TENET_API_KEY_${options.workspace.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] : undefined;
  const apiKey = workspaceKey ?? settings.TENET_API_KEY;
  const knowledgeUrl = settings.TENET_KNOWLEDGE_URL;
  return {
    url,
    ...(knowledgeUrl ? { knowledgeUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
  };
}

/** A thin JSON client over Tenet's public REST API, with errors a person can act on. */
export class TenetApi {
  constructor(readonly connection: Connection) {}

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: { allow404?: boolean; signal?: AbortSignal } = {},
  ): Promise<T | undefined> {
    let response: Response;
    try {
      response = await fetch(`${this.baseFor(path)}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(this.connection.apiKey ? { authorization: `Bearer ${this.connection.apiKey}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      const setting = this.baseFor(path) === this.connection.url ? 'TENET_URL or --url' : 'TENET_KNOWLEDGE_URL';
      throw new CliError(
        `cannot reach Tenet at ${this.baseFor(path)} (${cause}); is the server running? Set ${setting} to its address.`,
        2,
      );
    }
    if (response.status === 404 && options.allow404) return undefined;
    if (response.status === 204) return undefined;
    const text = await response.text();
    const parsed: unknown = text ? safeJson(text) : undefined;
    if (response.ok) return parsed as T;
    const detail = (parsed as { detail?: unknown } | undefined)?.detail ?? text;
    if (response.status === 401) {
      throw new CliError(
        `${this.connection.url} refused the request (401 unauthenticated: ${describeDetail(detail)}). ${this.connection.apiKey ? 'TENET_API_KEY is wrong, revoked or expired.' : 'Set TENET_API_KEY to an API key (tnt_…).'}`,
        3,
      );
    }
    if (response.status === 403)
      throw new CliError(
        `the API key may not ${method} ${path} (403 forbidden: ${describeDetail(detail)}); it needs a role that may (admin for definitions).`,
        3,
      );
    throw new ApiError(response.status, method, path, detail);
  }

  baseFor(path: string): string {
    return path.startsWith('/knowledge/') && this.connection.knowledgeUrl ? this.connection.knowledgeUrl : this.connection.url;
  }

  async get<T>(path: string): Promise<T> {
    return (await this.request<T>('GET', path)) as T;
  }

  async find<T>(path: string): Promise<T | undefined> {
    return this.request<T>('GET', path, undefined, { allow404: true });
  }

  /** Refuses to go on when `--workspace` names another workspace than the key's. */
  async checkWorkspace(): Promise<string> {
    const workspace = await this.get<{ id: string }>('/workspace');
    if (this.connection.workspace && workspace.id !== this.connection.workspace) {
      throw new CliError(
        `the API key belongs to workspace ${workspace.id}, not ${this.connection.workspace}; set TENET_API_KEY_${this.connection.workspace.toUpperCase().replace(/[^A-Z0-9]/g, '_')} or TENET_API_KEY to a key of ${this.connection.workspace}.`,
        3,
      );
    }
    return workspace.id;
  }
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};
