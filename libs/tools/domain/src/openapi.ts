/**
 * OpenAPI 3.x document → tool descriptors. Every operation Tenet can call is a tool named by its `operationId`
 * (or `<method>_<path>` made into an identifier); its path, query, header and cookie parameters and its request
 * body's properties are merged into ONE object schema, and `placement` says where each argument goes. An
 * operation Tenet cannot call is not a reason to refuse the document: it is listed in `skipped` with the reason.
 *
 * The document is expected dereferenced already (the service resolves `$ref`s across it, cycle-safe, with a
 * library); a `$ref` left over (a recursive schema) is resolved here when it is local and not a cycle.
 */
export type ArgumentPlacement = 'path' | 'query' | 'header' | 'cookie' | 'body';

/** How the request body is sent: JSON, `application/x-www-form-urlencoded` or `multipart/form-data`. */
export type BodyEncoding = 'json' | 'form' | 'multipart';

export interface OpenApiOperation {
  name: string;
  description: string;
  method: string;
  /** Path template, e.g. `/orders/{order_id}`. */
  path: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  placement: Record<string, ArgumentPlacement>;
  /** Set when the operation has a request body: its media type and how it is encoded. */
  body?: { contentType: string; encoding: BodyEncoding; whole?: string };
  /** The security requirements that apply (the operation's own, else the document's): scheme names, any one set suffices. */
  security?: string[][];
}

/** An operation of the document that is not offered as a tool, and why. */
export interface SkippedOperation {
  operation: string;
  reason: string;
}

export class InvalidOpenApiDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidOpenApiDocumentError';
  }
}

/** A problem of one operation: it is skipped, the rest of the document is used. */
class UnusableOperation extends Error {}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How many schema nodes one operation may expand to (shared references copied out could otherwise explode). */
const MAX_NODES_PER_OPERATION = 100_000;

/** Local `$ref`s resolved (`#/components/...`); a remote one or a cycle makes the operation unusable, not the document. */
function resolveRefs(
  document: Record<string, unknown>,
  value: unknown,
  seen: readonly string[] = [],
  budget = { nodes: MAX_NODES_PER_OPERATION },
): unknown {
  if (--budget.nodes < 0) throw new UnusableOperation(`its schemas expand to more than ${MAX_NODES_PER_OPERATION} nodes`);
  if (Array.isArray(value)) return value.map((item) => resolveRefs(document, item, seen, budget));
  if (!isRecord(value)) return value;
  const ref = value['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/'))
      throw new UnusableOperation(`it uses the external $ref "${ref}" (only references inside the document are followed)`);
    if (seen.includes(ref)) throw new UnusableOperation(`its schema is recursive ($ref "${ref}" refers to itself)`);
    let target: unknown = document;
    for (const segment of ref.slice(2).split('/')) {
      const key = decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isRecord(target) || Array.isArray(target) ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (target === undefined) throw new UnusableOperation(`$ref "${ref}" points at nothing`);
    return resolveRefs(document, target, [...seen, ref], budget);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRefs(document, item, seen, budget)]));
}

const identifier = (method: string, path: string): string =>
  `${method}_${path}`
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/_$/, '');

const securityOf = (value: unknown): string[][] | undefined =>
  Array.isArray(value) ? value.filter(isRecord).map((requirement) => Object.keys(requirement)) : undefined;

export function operationsFromOpenApi(raw: unknown): { operations: OpenApiOperation[]; skipped: SkippedOperation[] } {
  if (!isRecord(raw)) throw new InvalidOpenApiDocumentError('the document is not an object');
  const version = raw['openapi'];
  if (typeof version !== 'string' || !version.startsWith('3.'))
    throw new InvalidOpenApiDocumentError('"openapi" must be a 3.x version string (Swagger 2.0 documents are converted first)');
  const paths = raw['paths'] ?? {};
  if (!isRecord(paths)) throw new InvalidOpenApiDocumentError('"paths" must be an object');
  const documentSecurity = securityOf(raw['security']);
  const operations: OpenApiOperation[] = [];
  const skipped: SkippedOperation[] = [];
  const names = new Set<string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    // References are resolved per operation, so that one unusable reference costs that operation only.
    let item: unknown = rawItem;
    try {
      if (isRecord(rawItem) && typeof rawItem['$ref'] === 'string') item = resolveRefs(raw, { $ref: rawItem['$ref'] });
    } catch (error) {
      if (!(error instanceof UnusableOperation)) throw error;
      skipped.push({ operation: path, reason: error.message });
      continue;
    }
    if (!isRecord(item)) {
      skipped.push({ operation: path, reason: 'the path item is not an object' });
      continue;
    }
    for (const method of METHODS) {
      const rawOperation = item[method];
      if (rawOperation === undefined) continue;
      const label = `${method.toUpperCase()} ${path}`;
      const operationId =
        isRecord(rawOperation) && typeof rawOperation['operationId'] === 'string' ? rawOperation['operationId'] : undefined;
      try {
        const budget = { nodes: MAX_NODES_PER_OPERATION };
        if (!isRecord(rawOperation)) throw new UnusableOperation('the operation is not an object');
        // Only what a call sends is resolved: a recursive response schema does not make an operation uncallable.
        const operation: Record<string, unknown> = {
          ...rawOperation,
          parameters: resolveRefs(raw, rawOperation['parameters'], [], budget),
          requestBody: resolveRefs(raw, rawOperation['requestBody'], [], budget),
        };
        const shared = resolveRefs(raw, Array.isArray(item['parameters']) ? item['parameters'] : [], [], budget) as unknown[];
        const name = operationId !== undefined && /^[A-Za-z0-9_.-]{1,128}$/.test(operationId) ? operationId : identifier(method, path);
        if (names.has(name)) throw new UnusableOperation(`another operation is already named "${name}"`);
        const own = Array.isArray(operation['parameters']) ? operation['parameters'] : [];
        // An operation's parameter overrides the path item's of the same name and location.
        const merged = [
          ...shared.filter((p) => !own.some((o) => isRecord(o) && isRecord(p) && o['name'] === p['name'] && o['in'] === p['in'])),
          ...own,
        ];
        const mapped = mapOperation(name, method, path, merged, operation);
        const security = securityOf(operation['security']) ?? documentSecurity;
        operations.push(security ? { ...mapped, security } : mapped);
        names.add(name);
      } catch (error) {
        if (!(error instanceof UnusableOperation)) throw error;
        skipped.push({ operation: operationId !== undefined ? `${operationId} (${label})` : label, reason: error.message });
      }
    }
  }
  return { operations, skipped };
}

/** The request body media types Tenet can send, most preferred first. */
function bodyMediaType(
  content: Record<string, unknown>,
): { contentType: string; encoding: BodyEncoding; schema: Record<string, unknown> } | undefined {
  const entries = Object.entries(content);
  const pick = (test: (type: string) => boolean, encoding: BodyEncoding) => {
    const found = entries.find(([type]) => test(type.toLowerCase().split(';')[0]?.trim() ?? ''));
    if (!found) return undefined;
    const media = found[1];
    return { contentType: found[0], encoding, schema: isRecord(media) && isRecord(media['schema']) ? media['schema'] : {} };
  };
  return (
    pick((type) => type === 'application/json' || type.endsWith('+json'), 'json') ??
    pick((type) => type === 'application/x-www-form-urlencoded', 'form') ??
    pick((type) => type === 'multipart/form-data', 'multipart') ??
    pick((type) => type === '*/*' || type === 'application/*', 'json')
  );
}

function mapOperation(
  name: string,
  method: string,
  path: string,
  parameters: unknown[],
  operation: Record<string, unknown>,
): OpenApiOperation {
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  const placement: Record<string, ArgumentPlacement> = {};
  for (const parameter of parameters) {
    if (!isRecord(parameter) || typeof parameter['name'] !== 'string' || typeof parameter['in'] !== 'string')
      throw new UnusableOperation('a parameter has no "name" or "in"');
    const location = parameter['in'];
    if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie')
      throw new UnusableOperation(`parameter "${parameter['name']}" is in "${location}", which Tenet cannot send`);
    const name = parameter['name'];
    if (placement[name]) throw new UnusableOperation(`"${name}" is a parameter in both ${placement[name]} and ${location}`);
    const content = isRecord(parameter['content']) ? Object.values(parameter['content']).find(isRecord) : undefined;
    const given = isRecord(parameter['schema'])
      ? parameter['schema']
      : isRecord(content?.['schema'])
        ? content['schema']
        : { type: 'string' };
    const schema: Record<string, unknown> = { ...given };
    if (typeof parameter['description'] === 'string' && schema['description'] === undefined)
      schema['description'] = parameter['description'];
    properties[name] = schema;
    placement[name] = location;
    if (location === 'path' || parameter['required'] === true) required.add(name);
  }
  for (const [, template] of path.matchAll(/\{([^}]+)\}/g)) {
    if (template && placement[template] !== 'path') throw new UnusableOperation(`the path parameter "${template}" is not described`);
  }
  let body: OpenApiOperation['body'];
  const requestBody = isRecord(operation['requestBody']) ? operation['requestBody'] : undefined;
  if (requestBody) {
    const content = isRecord(requestBody['content']) ? requestBody['content'] : {};
    const media = bodyMediaType(content);
    if (!media)
      throw new UnusableOperation(
        `its request body is ${Object.keys(content).join(', ') || 'of no media type'}; Tenet sends JSON, application/x-www-form-urlencoded and multipart/form-data bodies`,
      );
    const bodyRequired = requestBody['required'] === true;
    const isObject =
      (media.schema['type'] === undefined && (isRecord(media.schema['properties']) || media.encoding !== 'json')) ||
      media.schema['type'] === 'object';
    const bodyProperties = isObject && isRecord(media.schema['properties']) ? media.schema['properties'] : {};
    // An object body's properties are arguments of their own, unless one is named like a parameter (Petstore's
    // updateUser: `username` in the path and in the User body) or the body is not an object: then one argument
    // carries the whole body.
    if (isObject && !Object.keys(bodyProperties).some((property) => placement[property])) {
      const requiredOfBody = Array.isArray(media.schema['required'])
        ? media.schema['required'].filter((item): item is string => typeof item === 'string')
        : [];
      for (const [property, propertySchema] of Object.entries(bodyProperties)) {
        properties[property] = propertySchema;
        placement[property] = 'body';
        if (bodyRequired && requiredOfBody.includes(property)) required.add(property);
      }
      body = { contentType: media.contentType, encoding: media.encoding };
    } else {
      const whole = ['body', 'request_body', 'requestBody'].find((candidate) => !placement[candidate]);
      if (!whole) throw new UnusableOperation('its request body cannot be given a parameter name of its own');
      properties[whole] = media.schema;
      placement[whole] = 'body';
      if (bodyRequired) required.add(whole);
      body = { contentType: media.contentType, encoding: media.encoding, whole };
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
    ...(body ? { body } : {}),
  };
}

export interface PlacedArguments {
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  /** `name=value` pairs for the Cookie header. */
  cookies: [string, string][];
  /** The body's fields (object bodies) or the whole body (`body.whole`); absent when the call sends none. */
  body?: unknown;
}

/** Where a call's arguments go: the path filled in (encoded), the query, headers, cookies and the body. */
export function placeArguments(operation: OpenApiOperation, args: Record<string, unknown>): PlacedArguments {
  const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  let path = operation.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  const cookies: [string, string][] = [];
  let fields: Record<string, unknown> | undefined;
  let whole: unknown;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const where = operation.placement[name];
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(text(value)));
    else if (where === 'query') {
      if (Array.isArray(value)) for (const item of value) query.push([name, text(item)]);
      else query.push([name, text(value)]);
    } else if (where === 'header') headers[name] = text(value);
    else if (where === 'cookie') cookies.push([name, text(value)]);
    else if (operation.body?.whole === name) whole = value;
    else (fields ??= {})[name] = value;
  }
  const body = operation.body?.whole !== undefined ? whole : fields;
  return body === undefined ? { path, query, headers, cookies } : { path, query, headers, cookies, body };
}
