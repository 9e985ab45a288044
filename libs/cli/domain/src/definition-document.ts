import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { AgentDefinitionSchema, type AgentDefinition } from './definition-schema.js';
import { canonicalEntry, keyOf, RESOURCE_KINDS, type Entry, type Resource, type ResourceKind } from './resources.js';

/** A problem in a definition file, located at the entry (or field) it is about. */
export interface DefinitionProblem {
  file: string;
  line: number;
  path: string;
  message: string;
}

export class DefinitionError extends Error {
  constructor(
    readonly problems: DefinitionProblem[],
    /** What was written before the server refused an entry (empty: nothing was). */
    readonly applied: readonly string[] = [],
  ) {
    super(problems.map(formatProblem).join('\n'));
  }
}

export const formatProblem = (p: DefinitionProblem): string => `${p.file}:${p.line}: ${p.path ? `${p.path}: ` : ''}${p.message}`;

/** A parsed definition file: the definition and where each of its entries is (for errors at the offending line). */
export interface DefinitionDocument {
  file: string;
  definition: AgentDefinition;
  /** The 1-based line of a path like `guidelines.3.action` (the deepest node that exists). */
  lineOf(path: readonly (string | number)[]): number;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateFile = ajv.compile<AgentDefinition>(AgentDefinitionSchema);

const ajvPath = (error: ErrorObject): string[] =>
  error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

const ajvMessage = (error: ErrorObject): string => {
  if (error.keyword === 'additionalProperties')
    return `unknown field ${String((error.params as { additionalProperty: string }).additionalProperty)}`;
  if (error.keyword === 'required') return `${String((error.params as { missingProperty: string }).missingProperty)} is required`;
  return error.message ?? error.keyword;
};

/** A parsed YAML/JSON document of a checked shape, and the line of any path in it. */
export interface CheckedDocument<T> {
  value: T;
  lineOf(path: readonly (string | number)[]): number;
}

/** Parses YAML or JSON (JSON is YAML) and checks it against a schema, every problem at its file and line. */
export function parseChecked<T>(text: string, file: string, validate: ValidateFunction<T>): CheckedDocument<T> {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number | undefined): number => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  const lineOf = (path: readonly (string | number)[]): number => {
    let node: unknown = document.contents;
    let line = lineAt((node as Node | null)?.range?.[0]);
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === String(segment));
        if (!pair) break;
        line = lineAt((pair.key as Node | null)?.range?.[0]);
        node = pair.value;
      } else if (isSeq(node)) {
        node = node.items[Number(segment)];
        if (!node) break;
        line = lineAt((node as Node).range?.[0]);
      } else break;
    }
    return line;
  };
  if (document.errors.length > 0) {
    throw new DefinitionError(
      document.errors.map((e) => ({ file, line: lineAt(e.pos[0]), path: '', message: e.message.split('\n')[0] ?? e.message })),
    );
  }
  const value: unknown = document.toJS();
  if (!validate(value)) {
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'if');
    throw new DefinitionError(errors.map((e) => ({ file, line: lineOf(ajvPath(e)), path: ajvPath(e).join('.'), message: ajvMessage(e) })));
  }
  return { value, lineOf };
}

/** Compiles a schema for `parseChecked`. */
export const compileSchema = <T>(schema: TSchema): ValidateFunction<T> => ajv.compile<T>(schema);

/** Parses one YAML or JSON definition and checks it against the file schema. */
export function parseDefinition(text: string, file: string): DefinitionDocument {
  const { value, lineOf } = parseChecked(text, file, validateFile);
  const problems = duplicateKeys(value).map(({ path, message }) => ({ file, line: lineOf(path), path: path.join('.'), message }));
  if (problems.length > 0) throw new DefinitionError(problems);
  return { file, definition: value, lineOf };
}

/** The same id twice in one kind is ambiguous: refused with the line of the second one. */
function duplicateKeys(definition: AgentDefinition): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const kind of RESOURCE_KINDS) {
    if (kind === 'agent') continue;
    const seen = new Set<string>();
    ((definition[kind] as Entry[] | undefined) ?? []).forEach((entry, index) => {
      const key = keyOf(kind, entry);
      if (seen.has(key)) problems.push({ path: [kind, index], message: `${key} appears twice in ${kind}` });
      seen.add(key);
    });
  }
  return problems;
}

/** Values the client resolved for entries that point outside the file (environment, documents). */
export interface ResolvedValues {
  /**
   * tool service name → its URL (and OpenAPI source) with environment references resolved, and — when the file gives
   * `auth` — what the server can show of those credentials: the scheme and the secret's hint (its last 4 characters,
   * as the server's `secret_hint`; absent when the secret's variable is unset or the scheme has no single secret).
   */
  services: Map<string, { url: string; source?: string; auth?: { scheme: string; secret_hint?: string } }>;
  /** knowledge id → the server's content hash of the document (sha256 of `format\0content`) */
  knowledgeHashes: Map<string, string>;
}

/** Where each resource of a document is: `kind key` → [file, index in its list]. */
export type EntryLocations = Map<string, { document: DefinitionDocument; path: (string | number)[] }>;

export const locationKey = (kind: ResourceKind, key: string): string => `${kind} ${key}`;

/** The resources a definition asks for, canonical, and where each one is written. */
export function desiredResources(doc: DefinitionDocument, resolved: ResolvedValues, locations: EntryLocations): Resource[] {
  const { definition } = doc;
  const agentId = definition.agent.id;
  const resources: Resource[] = [];
  const add = (kind: ResourceKind, entry: Entry, path: (string | number)[]): void => {
    const key = keyOf(kind, entry);
    resources.push({ kind, key, entry: canonicalEntry(kind, entry, agentId) });
    locations.set(locationKey(kind, key), { document: doc, path });
  };
  add('agent', definition.agent as Entry, ['agent']);
  for (const kind of RESOURCE_KINDS) {
    if (kind === 'agent') continue;
    ((definition[kind] as Entry[] | undefined) ?? []).forEach((entry, index) => {
      if (kind === 'tool_services') {
        const values = resolved.services.get(String(entry['name']));
        add(kind, { name: entry['name'], kind: entry['kind'], url: values?.url, ...(values?.auth ? { auth: values.auth } : {}) }, [
          kind,
          index,
        ]);
      } else if (kind === 'knowledge') {
        const { file: _file, ...rest } = entry;
        add(kind, { ...rest, content_hash: resolved.knowledgeHashes.get(String(entry['id'])) }, [kind, index]);
      } else add(kind, entry, [kind, index]);
    });
  }
  return resources;
}
