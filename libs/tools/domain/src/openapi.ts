/**
 * OpenAPI 3.x document → tool descriptors. Every operation is a tool named by its `operationId` (or
 * `<method>_<path>` made into an identifier); its path, query and header parameters and its JSON request
 * body's properties are merged into ONE object schema, and `placement` says where each argument goes.
 */
export type ArgumentPlacement = 'path' | 'query' | 'header' | 'body';

export interface OpenApiOperation {
  name: string;
  description: string;
  method: string;
  /** Path template, e.g. `/orders/{order_id}`. */
  path: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  placement: Record<string, ArgumentPlacement>;
}

export class InvalidOpenApiDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidOpenApiDocumentError';
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Resolves local `$ref`s (`#/components/...`); remote refs are refused, cycles are cut at a fixed depth. */
function resolveRefs(document: Record<string, unknown>, value: unknown, depth = 0): unknown {
  if (depth > 32) throw new InvalidOpenApiDocumentError('$ref nesting deeper than 32 (a cycle?)');
  if (Array.isArray(value)) return value.map((item) => resolveRefs(document, item, depth + 1));
  if (!isRecord(value)) return value;
  const ref = value['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/')) throw new InvalidOpenApiDocumentError(`only local $ref is supported, got "${ref}"`);
    let target: unknown = document;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isRecord(target) ? target[key] : undefined;
    }
    if (target === undefined) throw new InvalidOpenApiDocumentError(`$ref "${ref}" points at nothing`);
    return resolveRefs(document, target, depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRefs(document, item, depth + 1)]));
}

const identifier = (method: string, path: string): string =>
  `${method}_${path}`.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/_$/, '');

export function operationsFromOpenApi(raw: unknown): OpenApiOperation[] {
  if (!isRecord(raw)) throw new InvalidOpenApiDocumentError('the document is not an object');
  const version = raw['openapi'];
  if (typeof version !== 'string' || !version.startsWith('3.')) throw new InvalidOpenApiDocumentError('"openapi" must be a 3.x version string');
  const paths = raw['paths'];
  if (!isRecord(paths)) throw new InvalidOpenApiDocumentError('"paths" must be an object');
  const operations: OpenApiOperation[] = [];
  const names = new Set<string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolveRefs(raw, rawItem);
    if (!isRecord(item)) throw new InvalidOpenApiDocumentError(`paths["${path}"] must be an object`);
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      if (!isRecord(operation)) throw new InvalidOpenApiDocumentError(`${method.toUpperCase()} ${path} must be an object`);
      const name = typeof operation['operationId'] === 'string' && operation['operationId'] !== '' ? operation['operationId'] : identifier(method, path);
      if (names.has(name)) throw new InvalidOpenApiDocumentError(`two operations are named "${name}"`);
      names.add(name);
      operations.push(mapOperation(name, method, path, [...shared, ...(Array.isArray(operation['parameters']) ? operation['parameters'] : [])], operation));
    }
  }
  return operations;
}

function mapOperation(name: string, method: string, path: string, parameters: unknown[], operation: Record<string, unknown>): OpenApiOperation {
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  const placement: Record<string, ArgumentPlacement> = {};
  const where = `${method.toUpperCase()} ${path}`;
  for (const parameter of parameters) {
    if (!isRecord(parameter) || typeof parameter['name'] !== 'string' || typeof parameter['in'] !== 'string') {
      throw new InvalidOpenApiDocumentError(`${where}: every parameter needs "name" and "in"`);
    }
    const location = parameter['in'];
    if (location === 'cookie') continue;
    if (location !== 'path' && location !== 'query' && location !== 'header') throw new InvalidOpenApiDocumentError(`${where}: parameter "${parameter['name']}" has unknown "in": "${location}"`);
    const schema: Record<string, unknown> = isRecord(parameter['schema']) ? { ...parameter['schema'] } : { type: 'string' };
    if (typeof parameter['description'] === 'string' && schema['description'] === undefined) schema['description'] = parameter['description'];
    properties[parameter['name']] = schema;
    placement[parameter['name']] = location;
    if (location === 'path' || parameter['required'] === true) required.add(parameter['name']);
  }
  const body = isRecord(operation['requestBody']) ? operation['requestBody'] : undefined;
  if (body) {
    const content = isRecord(body['content']) ? body['content'] : {};
    const json = Object.entries(content).find(([type]) => type === 'application/json' || type.endsWith('+json'))?.[1];
    const schema = isRecord(json) && isRecord(json['schema']) ? json['schema'] : undefined;
    if (!schema) throw new InvalidOpenApiDocumentError(`${where}: only JSON request bodies are supported`);
    if (schema['type'] !== undefined && schema['type'] !== 'object') throw new InvalidOpenApiDocumentError(`${where}: the request body must be an object schema`);
    const bodyProperties = isRecord(schema['properties']) ? schema['properties'] : {};
    const bodyRequired = Array.isArray(schema['required']) ? schema['required'].filter((item): item is string => typeof item === 'string') : [];
    for (const [property, propertySchema] of Object.entries(bodyProperties)) {
      if (placement[property]) throw new InvalidOpenApiDocumentError(`${where}: "${property}" is both a parameter and a body property`);
      properties[property] = propertySchema;
      placement[property] = 'body';
      if (body['required'] === true && bodyRequired.includes(property)) required.add(property);
    }
  }
  const summary = typeof operation['summary'] === 'string' ? operation['summary'] : '';
  const details = typeof operation['description'] === 'string' ? operation['description'] : '';
  return {
    name,
    description: [summary, details].filter(Boolean).join('\n\n'),
    method: method.toUpperCase(),
    path,
    parameters: required.size > 0 ? { type: 'object', properties, required: [...required] } : { type: 'object', properties },
    placement,
  };
}

/** Where a call's arguments go: the path filled in (encoded), the query, headers and the JSON body. */
export function placeArguments(operation: OpenApiOperation, args: Record<string, unknown>): { path: string; query: [string, string][]; headers: Record<string, string>; body?: Record<string, unknown> } {
  const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  let path = operation.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const where = operation.placement[name];
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(text(value)));
    else if (where === 'query') {
      if (Array.isArray(value)) for (const item of value) query.push([name, text(item)]);
      else query.push([name, text(value)]);
    } else if (where === 'header') headers[name] = text(value);
    else (body ??= {})[name] = value;
  }
  return body === undefined ? { path, query, headers } : { path, query, headers, body };
}
