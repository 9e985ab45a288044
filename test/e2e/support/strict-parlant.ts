import { ParlantClient, serialization } from 'parlant-client';

/**
 * parlant-client@3.3.1 validates every response with its serializers, but leniently: each client method calls
 * `serializers.X.parseOrThrow(body, { unrecognizedObjectKeys: "passthrough", allowUnrecognizedUnionMembers: true,
 * allowUnrecognizedEnumValues: true })`. A contract test needs the strict form — an extra field, an enum value
 * or union member the client does not know is a response that is not of the client's wire type.
 *
 * `makeSerializersStrict` replaces `parseOrThrow` on every schema the client exports (the same objects the
 * client's methods call, so their calls go through it) with one that ignores the lenient options and parses
 * with the schema library's strict defaults. Nested schemas receive the options from the top-level call.
 *
 * Tenet returns a few fields Parlant's wire types do not have (its extensions: Parlant clients ignore them). Those
 * are the only errors not thrown: each `Unexpected key` is recorded per wire type (path with list indexes as `*`)
 * in `extensions`, for the suite to compare with the extensions it declares — an undeclared field fails there.
 * Every other error (missing, mistyped, unknown enum value or union member) fails the call.
 */
export const STRICT = {
  unrecognizedObjectKeys: 'fail',
  allowUnrecognizedUnionMembers: false,
  allowUnrecognizedEnumValues: false,
  skipValidation: false,
} as const;

interface SchemaLike {
  parse: (raw: unknown, opts?: unknown) => { ok: true; value: unknown } | { ok: false; errors: { path: string[]; message: string }[] };
  parseOrThrow: (raw: unknown, opts?: unknown) => unknown;
  getType: () => string;
}

const isSchema = (value: unknown): value is SchemaLike =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SchemaLike).parse === 'function' &&
  typeof (value as SchemaLike).parseOrThrow === 'function' &&
  typeof (value as SchemaLike).getType === 'function';

/** Every response that failed strict parsing, with the schema's export path (also thrown to the caller). */
export interface StrictFailure {
  schema: string;
  errors: string[];
}

export function makeSerializersStrict(): { schemas: number; failures: StrictFailure[]; extensions: Map<string, Set<string>> } {
  const failures: StrictFailure[] = [];
  const extensions = new Map<string, Set<string>>();
  const seen = new WeakSet<object>();
  let schemas = 0;
  const walk = (node: Record<string, unknown>, path: string): void => {
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      if (isSchema(value)) {
        schemas++;
        const schema = value;
        const name = path ? `${path}.${key}` : key;
        schema.parseOrThrow = (raw: unknown) => {
          // Everything strict but unknown fields first: an error here is a response of the wrong type.
          const lenient = schema.parse(raw, { ...STRICT, unrecognizedObjectKeys: 'passthrough' });
          if (!lenient.ok) {
            const errors = lenient.errors.map((e) => `${e.path.join('.')}: ${e.message}`);
            failures.push({ schema: name, errors });
            throw new Error(`response is not a strict ${name}: ${errors.join('; ')}`);
          }
          // Then fully strict: what fails now are fields the wire type does not have (Tenet's extensions).
          const parsed = schema.parse(raw, STRICT);
          if (!parsed.ok) {
            const keys = extensions.get(name) ?? new Set<string>();
            for (const e of parsed.errors) {
              const key = /Unexpected key "([^"]+)"/.exec(e.message)?.[1];
              if (key) keys.add([...e.path.slice(0, -1).map((segment) => (/^\[?\d+\]?$/.test(segment) ? '*' : segment)), key].join('.'));
            }
            extensions.set(name, keys);
          }
          return lenient.value;
        };
      } else {
        walk(value as Record<string, unknown>, path ? `${path}.${key}` : key);
      }
    }
  };
  walk(serialization as unknown as Record<string, unknown>, '');
  return { schemas, failures, extensions };
}

/** `resource.method` for every method of the client (and its own top-level methods), found on the prototypes. */
export function clientMethods(client: ParlantClient): string[] {
  const methods: string[] = [];
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(ParlantClient.prototype))) {
    if (name === 'constructor') continue;
    if (typeof descriptor.value === 'function') methods.push(name);
    if (descriptor.get) {
      const resource = (client as unknown as Record<string, object>)[name]!;
      for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(resource))) {
        if (method !== 'constructor' && !method.startsWith('_') && typeof (resource as Record<string, unknown>)[method] === 'function')
          methods.push(`${name}.${method}`);
      }
    }
  }
  return methods.sort();
}

/**
 * A client whose resources record each method call that returned (2xx and, when it has a body, parsed strictly):
 * `covered` after the suite is the set of methods it exercised.
 */
export function trackedClient(environment: string): { client: ParlantClient; covered: Set<string>; all: string[] } {
  const inner = new ParlantClient({ environment });
  const covered = new Set<string>();
  const wrap = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (typeof property !== 'string' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args)) as unknown;
          covered.add(prefix ? `${prefix}.${property}` : property);
          return result;
        };
      },
    });
  const resources = new Map<string, object>();
  const client = new Proxy(inner, {
    get(object, property, receiver) {
      const descriptor = typeof property === 'string' ? Object.getOwnPropertyDescriptor(ParlantClient.prototype, property) : undefined;
      if (descriptor?.get && typeof property === 'string') {
        if (!resources.has(property)) resources.set(property, wrap(Reflect.get(object, property, receiver) as object, property));
        return resources.get(property);
      }
      if (descriptor && typeof descriptor.value === 'function')
        return wrap({ [property as string]: (descriptor.value as () => unknown).bind(object) }, '')[property as string];
      return Reflect.get(object, property, receiver) as unknown;
    },
  });
  return { client, covered, all: clientMethods(inner) };
}
