import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  DefinitionError,
  desiredResources,
  parseDefinition,
  type DefinitionDocument,
  type DefinitionProblem,
  type EntryLocations,
  type Resource,
  type ResolvedInputs,
  type ResolvedValues,
  type ToolServiceAuthT,
  type ToolServiceEntryT,
} from '@tenet/cli-domain';
import { secretHint } from '@tenet/secrets';
import { CliError } from './api-client.js';

/** One agent's definition as apply uses it: what it asks for, and the bodies of its services and documents. */
export interface LoadedDefinition {
  document: DefinitionDocument;
  agentId: string;
  resources: Resource[];
  inputs: ResolvedInputs;
  locations: EntryLocations;
  /** Problems that matter only when a tool service is registered (its OpenAPI `source` from an unset variable). */
  deferred: Map<string, DefinitionProblem>;
}

const DEFINITION_FILE = /\.(ya?ml|json)$/i;

/** The definition files a `-f` names: the file, or every *.yaml / *.yml / *.json directly in the directory. */
export function definitionFiles(path: string): string[] {
  const full = resolve(path);
  if (!existsSync(full)) throw new CliError(`${path} does not exist`);
  if (!statSync(full).isDirectory()) return [full];
  const files = readdirSync(full)
    .filter((name) => DEFINITION_FILE.test(name))
    .sort()
    .map((name) => join(full, name));
  if (files.length === 0) throw new CliError(`${path} holds no definition files (*.yaml, *.yml, *.json)`);
  return files;
}

/** The server's content hash of a knowledge document (memory store: sha256 of `format\0content`). */
export const knowledgeHash = (format: string, content: string): string =>
  createHash('sha256').update(`${format}\u0000${content}`).digest('hex');

/** Reads a document's content as the API takes it: text, or base64 for a PDF. */
const documentContent = (file: string, format: string): string =>
  format === 'pdf' ? readFileSync(file).toString('base64') : readFileSync(file, 'utf8');

/**
 * Loads every definition under `path`, resolving environment references (`{env: NAME}`) and reading knowledge
 * documents. Every problem of every file is collected and thrown together, each at its file and line.
 */
export function loadDefinitions(path: string, env: NodeJS.ProcessEnv): LoadedDefinition[] {
  const problems: DefinitionProblem[] = [];
  const loaded: LoadedDefinition[] = [];
  const agents = new Map<string, string>();
  for (const file of definitionFiles(path)) {
    let document: DefinitionDocument;
    try {
      document = parseDefinition(readFileSync(file, 'utf8'), file);
    } catch (error) {
      if (error instanceof DefinitionError) problems.push(...error.problems);
      else throw error;
      continue;
    }
    const { definition } = document;
    const agentId = definition.agent.id;
    const where = (path: (string | number)[], message: string): void => {
      problems.push({ file, line: document.lineOf(path), path: path.join('.'), message });
    };
    const other = agents.get(agentId);
    if (other) where(['agent', 'id'], `agent ${agentId} is also defined in ${other}`);
    agents.set(agentId, file);

    const resolved: ResolvedValues = { services: new Map(), knowledgeHashes: new Map() };
    const deferred = new Map<string, DefinitionProblem>();
    const inputs: ResolvedInputs = { services: new Map(), knowledge: new Map() };
    (definition.tool_services ?? []).forEach((service, index) => {
      const at = (path: (string | number)[], message: string): DefinitionProblem => ({
        file,
        line: document.lineOf(['tool_services', index, ...path]),
        path: ['tool_services', index, ...path].join('.'),
        message,
      });
      const value = (field: 'url' | 'source'): string | undefined => {
        const raw = service[field];
        if (raw === undefined || typeof raw === 'string') return raw;
        const found = env[raw.env];
        if (found !== undefined && found !== '') return found;
        const problem = at([field], `environment variable ${raw.env} is not set`);
        // The url is compared with the server's; the source is sent only when the service is (re)registered.
        if (field === 'url') problems.push(problem);
        else deferred.set(service.name, problem);
        return undefined;
      };
      const missingSecret = (path: string[], name: string): void =>
        void deferred.set(
          service.name,
          at(path, `environment variable ${name} is not set (it holds a credential of tool service ${service.name})`),
        );
      for (const problem of serviceShapeProblems(service)) problems.push(at(problem.path, problem.message));
      if (service.command !== undefined) {
        // A stdio MCP server: the server shows it as `stdio:<command>` and its sealed env as credentials of scheme `env`.
        const environment = service.env
          ? resolveAuth({ scheme: 'env', env: service.env }, env, (field, name) => missingSecret(field, name))
          : undefined;
        resolved.services.set(service.name, {
          url: `stdio:${encodeURIComponent(service.command)}`,
          ...(environment ? { auth: environment.shown } : {}),
        });
        const mcp = {
          command: service.command,
          ...(service.args ? { args: service.args } : {}),
          ...(environment ? { env: environment.body['env'] } : {}),
        };
        inputs.services.set(service.name, { kind: service.kind, mcp });
        return;
      }
      const url = value('url') ?? '';
      const source = value('source');
      const credentials = service.auth
        ? resolveAuth(service.auth, env, (field, name) => missingSecret(['auth', ...field], name))
        : undefined;
      resolved.services.set(service.name, {
        url,
        ...(source !== undefined ? { source } : {}),
        ...(credentials ? { auth: credentials.shown } : {}),
      });
      inputs.services.set(service.name, {
        kind: service.kind,
        [service.kind]: { url, ...(service.kind === 'openapi' && source !== undefined ? { source } : {}) },
        ...(credentials ? { auth: credentials.body } : {}),
      });
    });
    (definition.knowledge ?? []).forEach((source, index) => {
      const documentPath = resolve(dirname(file), source.file);
      const format = source.format ?? 'markdown';
      if (!existsSync(documentPath)) {
        where(['knowledge', index, 'file'], `${source.file} does not exist (relative to ${dirname(file)})`);
        return;
      }
      const content = documentContent(documentPath, format);
      resolved.knowledgeHashes.set(source.id, knowledgeHash(format, content));
      inputs.knowledge.set(source.id, {
        id: source.id,
        title: source.title,
        ...(source.url ? { url: source.url } : {}),
        format,
        content,
        agent_ids: [agentId],
      });
    });
    const ownGuidelines = new Set((definition.guidelines ?? []).map((g) => g.id));
    (definition.relationships ?? []).forEach((relationship, index) => {
      if (!ownGuidelines.has(relationship.source))
        where(
          ['relationships', index, 'source'],
          `${relationship.source} is not a guideline of this file: a relationship belongs to the agent of its source guideline`,
        );
    });
    const locations: EntryLocations = new Map();
    loaded.push({ document, agentId, resources: desiredResources(document, resolved, locations), inputs, locations, deferred });
  }
  if (problems.length > 0) throw new DefinitionError(problems);
  return loaded;
}

/** Combinations the file schema cannot express: an HTTP service needs a url, a stdio MCP server a command, never both. */
function serviceShapeProblems(service: ToolServiceEntryT): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  if (service.command !== undefined) {
    if (service.kind !== 'mcp') problems.push({ path: ['command'], message: 'command (a stdio MCP server) is for kind mcp only' });
    if (service.url !== undefined)
      problems.push({ path: ['url'], message: 'give either url (an HTTP server) or command (a stdio MCP server), not both' });
    if (service.auth !== undefined)
      problems.push({ path: ['auth'], message: 'auth applies to servers reached over HTTP; give a stdio server its secrets in env' });
  } else {
    if (service.url === undefined) problems.push({ path: [], message: 'url is required (or command, for a stdio MCP server)' });
    for (const field of ['args', 'env'] as const)
      if (service[field] !== undefined) problems.push({ path: [field], message: `${field} is for a stdio MCP server (with command)` });
  }
  if (service.kind === 'openapi' && service.source === undefined)
    problems.push({ path: [], message: 'source (the OpenAPI document URL) is required for an openapi service' });
  return problems;
}

/** The secret field of each scheme (what the server's `secret_hint` is made from); `headers` and a stdio server's `env` have several. */
const SECRET_FIELD: Record<string, string | undefined> = {
  api_key: 'value',
  bearer: 'token',
  basic: 'password',
  oauth2_client_credentials: 'client_secret',
  headers: undefined,
};

/**
 * A service's `auth` with its environment references read: the body PUT /services sends, and what the server will
 * show of it (`{scheme, secret_hint}`, for the plan to compare). An unset variable is reported through `missing`
 * (it matters only when the service is registered) and leaves the hint unknown.
 */
function resolveAuth(
  auth: ToolServiceAuthT | { scheme: 'env'; env: Record<string, unknown> },
  env: NodeJS.ProcessEnv,
  missing: (field: string[], name: string) => void,
): { body: Record<string, unknown>; shown: { scheme: string; secret_hint?: string } } {
  let complete = true;
  const read = (value: unknown, field: string[]): unknown => {
    if (typeof value !== 'object' || value === null || !('env' in value)) return value;
    const name = String((value as { env: unknown }).env);
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    complete = false;
    missing(field, name);
    return undefined;
  };
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(auth)) {
    body[field] =
      field === 'headers' || field === 'env'
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, v]) => [name, read(v, [field, name])]))
        : read(value, [field]);
  }
  const secretField = SECRET_FIELD[auth.scheme];
  const secret = secretField ? body[secretField] : undefined;
  return { body, shown: { scheme: auth.scheme, ...(complete && typeof secret === 'string' ? { secret_hint: secretHint(secret) } : {}) } };
}
