import { stringify } from 'yaml';
import type { AgentDefinition } from './definition-schema.js';
import { RESOURCE_KINDS, type Entry, type Resource } from './resources.js';

/** How the API shows the url of an MCP server run over stdio: `stdio:<command, URI-encoded>`. */
const STDIO_PREFIX = 'stdio:';

/** Environment variable an exported OpenAPI service's document URL is read from (the API does not return it). */
export const serviceSourceVariable = (name: string): string => `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_OPENAPI_SOURCE`;

/**
 * A definition holding the server's current resources of one agent (canonical: defaults left out), in the file's
 * key order. Knowledge entries point at `knowledgeFiles` (the client writes or finds those documents); an OpenAPI
 * service's document URL becomes an environment reference, because the API does not return it. A service's
 * credentials are left out (never written: the API returns only their scheme and hint; see `credentialNotes`).
 */
export function definitionFromResources(resources: readonly Resource[], knowledgeFiles: ReadonlyMap<string, string>): AgentDefinition {
  const agent = resources.find((r) => r.kind === 'agent');
  if (!agent) throw new Error('no agent among the resources');
  const out: Entry = { version: 1, agent: agent.entry };
  for (const kind of RESOURCE_KINDS) {
    if (kind === 'agent') continue;
    const entries = resources
      .filter((r) => r.kind === kind)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((r): Entry => {
        if (kind === 'tool_services') {
          // Credentials are never exported (the server cannot return them); without `auth` the file leaves them as they are.
          const { auth: _credentials, ...service } = r.entry;
          const url = String(service['url'] ?? '');
          // A stdio MCP server is shown as `stdio:<command>`: the file names the command (its args and env are not returned).
          if (url.startsWith(STDIO_PREFIX))
            return { name: service['name'], kind: service['kind'], command: decodeURIComponent(url.slice(STDIO_PREFIX.length)) };
          return { ...service, ...(r.entry['kind'] === 'openapi' ? { source: { env: serviceSourceVariable(r.key) } } : {}) };
        }
        if (kind === 'knowledge') {
          const { content_hash: _hash, ...rest } = r.entry;
          return {
            id: rest['id'],
            title: rest['title'],
            file: knowledgeFiles.get(r.key) ?? `knowledge/${r.key}.md`,
            ...Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'id' && k !== 'title')),
          };
        }
        return r.entry;
      });
    if (entries.length > 0) out[kind] = entries;
  }
  return out as unknown as AgentDefinition;
}

/** YAML text of a definition; with `schemaPath`, the comment editors (yaml-language-server) use for completion. */
export const renderDefinition = (definition: AgentDefinition, schemaPath?: string): string =>
  `${schemaPath ? `# yaml-language-server: $schema=${schemaPath}\n` : ''}${stringify(definition, { lineWidth: 0, aliasDuplicateObjects: false })}`;

/**
 * What export says about what it could not write: one note per tool service with credentials on the server (a stdio
 * MCP server's sealed env included), and per stdio server, whose arguments the API does not return.
 */
export function credentialNotes(resources: readonly Resource[]): string[] {
  return resources
    .filter((r) => r.kind === 'tool_services')
    .flatMap((r) => {
      const auth = r.entry['auth'] as { scheme: string; secret_hint?: string } | undefined;
      const notes: string[] = [];
      if (String(r.entry['url'] ?? '').startsWith(STDIO_PREFIX))
        notes.push(
          `tool service ${r.key}: a stdio MCP server; the API does not return its args: add them to the file if the command takes any`,
        );
      if (auth?.scheme === 'env')
        notes.push(
          `tool service ${r.key}: has an environment for its command on the server (sealed), not exported; the file leaves it as it is — to manage it from the file, add env with each value as { env: NAME }`,
        );
      else if (auth)
        notes.push(
          `tool service ${r.key}: has ${auth.scheme} credentials on the server${auth.secret_hint ? ` (secret ${auth.secret_hint})` : ''}, not exported (secrets are never written); the file leaves them as they are — to manage them from the file, add auth with the secret as { env: NAME }`,
        );
      return notes;
    });
}
