/**
 * Parlant's plugin protocol (its `sdk` tool services): `GET /tools` lists tools whose `parameters` map each
 * name to `[descriptor, options]`, with `required` beside it; `POST /tools/{name}/calls` answers a stream of
 * JSON objects written back to back — `{message}`, `{status, data}`, `{custom}` while the tool runs, then
 * `{result: {data, metadata, control, ...}}` or `{error}`.
 */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class InvalidPluginResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPluginResponseError';
  }
}

const PARAMETER_TYPES: Record<string, Record<string, unknown>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
};

/** One Parlant parameter descriptor as JSON Schema. */
function parameterSchema(name: string, descriptor: unknown, options: unknown): Record<string, unknown> {
  if (!isRecord(descriptor) || typeof descriptor['type'] !== 'string')
    throw new InvalidPluginResponseError(`parameter "${name}" has no type`);
  const type = descriptor['type'];
  let schema: Record<string, unknown>;
  if (type === 'array') {
    const itemType = typeof descriptor['item_type'] === 'string' ? descriptor['item_type'] : 'string';
    const items = { ...(PARAMETER_TYPES[itemType] ?? { type: 'string' }) };
    if (Array.isArray(descriptor['enum'])) items['enum'] = descriptor['enum'];
    schema = { type: 'array', items };
  } else {
    const base = PARAMETER_TYPES[type];
    if (!base) throw new InvalidPluginResponseError(`parameter "${name}" has unknown type "${type}"`);
    schema = { ...base };
    if (Array.isArray(descriptor['enum'])) schema['enum'] = descriptor['enum'];
  }
  const description =
    typeof descriptor['description'] === 'string'
      ? descriptor['description']
      : isRecord(options) && typeof options['description'] === 'string'
        ? options['description']
        : undefined;
  if (description) schema['description'] = description;
  if (Array.isArray(descriptor['examples'])) schema['examples'] = descriptor['examples'];
  return schema;
}

export interface PluginToolDescriptor {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

/** The body of `GET /tools` as descriptors. */
export function descriptorsFromPluginTools(body: unknown): PluginToolDescriptor[] {
  if (!isRecord(body) || !Array.isArray(body['tools'])) throw new InvalidPluginResponseError('GET /tools must answer {"tools": [...]}');
  return body['tools'].map((tool, index) => {
    if (!isRecord(tool) || typeof tool['name'] !== 'string' || tool['name'] === '')
      throw new InvalidPluginResponseError(`tools[${index}] has no name`);
    const parameters = isRecord(tool['parameters']) ? tool['parameters'] : {};
    const properties: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(parameters)) {
      const [descriptor, options] = Array.isArray(entry) ? entry : [entry, undefined];
      properties[name] = parameterSchema(name, descriptor, options);
    }
    const required = Array.isArray(tool['required']) ? tool['required'].filter((item): item is string => typeof item === 'string') : [];
    return {
      name: tool['name'],
      description: typeof tool['description'] === 'string' ? tool['description'] : '',
      parameters: required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties },
    };
  });
}

/** Splits back-to-back JSON objects (`{..}{..}`, with or without whitespace between) into values. */
export function splitJsonObjects(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (char === '}') {
      depth--;
      if (depth < 0) throw new InvalidPluginResponseError('unbalanced "}" in the call response');
      if (depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    } else if (depth === 0 && !/\s/.test(char ?? ''))
      throw new InvalidPluginResponseError('the call response is not a stream of JSON objects');
  }
  if (depth !== 0 || inString) throw new InvalidPluginResponseError('the call response ended inside a JSON object');
  return values;
}

export type PluginCallOutcome =
  | { kind: 'result'; data: unknown; metadata: Record<string, unknown>; control: Record<string, unknown> }
  | { kind: 'error'; message: string };

/** The outcome of `POST /tools/{name}/calls` from its streamed body (progress chunks are skipped). */
export function pluginCallOutcome(text: string): PluginCallOutcome {
  for (const chunk of splitJsonObjects(text)) {
    if (!isRecord(chunk)) continue;
    const result = chunk['result'];
    if (isRecord(result) && 'data' in result) {
      return {
        kind: 'result',
        data: result['data'],
        metadata: isRecord(result['metadata']) ? result['metadata'] : {},
        control: isRecord(result['control']) ? result['control'] : {},
      };
    }
    if ('error' in chunk)
      return { kind: 'error', message: typeof chunk['error'] === 'string' ? chunk['error'] : JSON.stringify(chunk['error']) };
  }
  throw new InvalidPluginResponseError('the call response has no result');
}
