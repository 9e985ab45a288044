import { deepEqual, isPlainObject, RESOURCE_KINDS, type Entry, type Resource, type ResourceKind } from './resources.js';

/** One field that differs: its dotted path, the server's value and the file's (undefined = absent / default). */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

export type Change =
  | { action: 'create'; kind: ResourceKind; key: string; desired: Entry }
  | { action: 'update'; kind: ResourceKind; key: string; desired: Entry; current: Entry; fields: FieldChange[] }
  | { action: 'delete'; kind: ResourceKind; key: string; current: Entry; serverId?: string };

export interface Plan {
  changes: Change[];
  /** Resources on the server that the files do not name, left alone because `--prune` was not given. */
  unmanaged: { kind: ResourceKind; key: string }[];
}

/** Field-by-field differences of two canonical entries: objects are walked, anything else compared whole. */
export function fieldChanges(current: Entry, desired: Entry, prefix = ''): FieldChange[] {
  const keys = [...new Set([...Object.keys(current), ...Object.keys(desired)])];
  const changes: FieldChange[] = [];
  for (const key of keys) {
    const before = current[key];
    const after = desired[key];
    const path = prefix ? `${prefix}.${key}` : key;
    if (deepEqual(before, after)) continue;
    if (isPlainObject(before) && isPlainObject(after)) changes.push(...fieldChanges(before, after, path));
    else changes.push({ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) });
  }
  return changes;
}

/**
 * A tool service's credentials as the plan compares them. The server never returns them, only `{scheme,
 * secret_hint}`: a file without `auth` leaves whatever the server holds alone (compared equal), and a file whose
 * secret could not be read (its variable unset, or a scheme without one secret) is taken to hold the server's one.
 */
function comparableService(desired: Entry, current: Entry): Entry {
  const want = desired['auth'] as { scheme: string; secret_hint?: string } | undefined;
  const have = current['auth'] as { scheme: string; secret_hint?: string } | undefined;
  if (!have) return desired;
  if (!want) return { ...desired, auth: have };
  if (want.secret_hint === undefined && want.scheme === have.scheme) return { ...desired, auth: have };
  return desired;
}

const byKind = (resources: readonly Resource[]): Map<string, Resource> => new Map(resources.map((r) => [`${r.kind}\u0000${r.key}`, r]));

/**
 * What apply must do to make the server (`current`, canonical) match the files (`desired`, canonical): creates and
 * updates in dependency order (RESOURCE_KINDS), then — with `prune` — deletes in the reverse order. Tool services
 * are shared by every agent of a workspace, so they are never pruned.
 */
export function planChanges(desired: readonly Resource[], current: readonly Resource[], options: { prune: boolean }): Plan {
  const wanted = byKind(desired);
  const existing = byKind(current);
  const changes: Change[] = [];
  for (const kind of RESOURCE_KINDS) {
    for (const resource of desired.filter((r) => r.kind === kind)) {
      const now = existing.get(`${kind}\u0000${resource.key}`);
      if (!now) changes.push({ action: 'create', kind, key: resource.key, desired: resource.entry });
      else {
        const fields = fieldChanges(now.entry, kind === 'tool_services' ? comparableService(resource.entry, now.entry) : resource.entry);
        if (fields.length > 0)
          changes.push({ action: 'update', kind, key: resource.key, desired: resource.entry, current: now.entry, fields });
      }
    }
  }
  const unmanaged: Plan['unmanaged'] = [];
  for (const kind of [...RESOURCE_KINDS].reverse()) {
    for (const resource of current.filter((r) => r.kind === kind && !wanted.has(`${kind}\u0000${r.key}`))) {
      if (options.prune && kind !== 'tool_services' && kind !== 'agent')
        changes.push({
          action: 'delete',
          kind,
          key: resource.key,
          current: resource.entry,
          ...(resource.serverId ? { serverId: resource.serverId } : {}),
        });
      else unmanaged.push({ kind, key: resource.key });
    }
  }
  return { changes, unmanaged };
}

const show = (value: unknown): string => (value === undefined ? '(default)' : JSON.stringify(value));

/** Credentials cannot be read back: what changes is said in words, with the scheme and the secrets' hints at most. */
function credentialsChange(before: unknown, after: unknown): string {
  const of = (value: unknown) => value as { scheme: string; secret_hint?: string } | undefined;
  const [was, will] = [of(before), of(after)];
  const described = (auth: { scheme: string; secret_hint?: string }) =>
    `${auth.scheme}${auth.secret_hint ? `, secret ${auth.secret_hint}` : ''}`;
  if (!will) return 'credentials set on the server, not in the files (kept)';
  if (!was) return `credentials will be set (${described(will)})`;
  return `credentials set (${described(was)}) will be replaced (${described(will)})`;
}

/** The plan as a reviewer reads it: `+` create, `~` update with each field's before → after, `-` delete. */
export function renderPlan(plan: Plan): string {
  if (plan.changes.length === 0) return 'No changes: the server matches the definitions.';
  const lines: string[] = [];
  for (const change of plan.changes) {
    const label = `${change.kind} ${change.key}`;
    if (change.action === 'create') lines.push(`+ ${label}`);
    else if (change.action === 'delete') lines.push(`- ${label}`);
    else {
      lines.push(`~ ${label}`);
      const credentials = change.fields.filter((field) => field.path === 'auth' || field.path.startsWith('auth.'));
      for (const field of change.fields)
        if (!credentials.includes(field)) lines.push(`    ${field.path}: ${show(field.before)} → ${show(field.after)}`);
      if (credentials.length > 0) lines.push(`    auth: ${credentialsChange(change.current['auth'], change.desired['auth'])}`);
    }
  }
  const count = (action: Change['action']): number => plan.changes.filter((c) => c.action === action).length;
  lines.push(`${count('create')} to add, ${count('update')} to change, ${count('delete')} to remove.`);
  return lines.join('\n');
}
