import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  createRequest,
  DefinitionError,
  deleteRequest,
  locationKey,
  planChanges,
  unsupportedChanges,
  updateRequests,
  type ApiRequest,
  type Change,
  type DefinitionProblem,
  type Plan,
  type Resource,
} from '@tenet/cli-domain';
import { ApiError, type TenetApi } from './api-client.js';
import type { LoadedDefinition } from './definition-files.js';
import { readAgentState } from './server-state.js';

export interface AgentPlan {
  definition: LoadedDefinition;
  plan: Plan;
  current: Resource[];
}

/** Reads the server's state of each agent the files define and plans the changes (what `tenet diff` prints). */
export async function planDefinitions(
  api: TenetApi,
  definitions: readonly LoadedDefinition[],
  options: { prune: boolean },
): Promise<AgentPlan[]> {
  const plans: AgentPlan[] = [];
  for (const definition of definitions) {
    const services = (definition.document.definition.tool_services ?? []).map((s) => s.name);
    const current = await readAgentState(api, definition.agentId, services);
    plans.push({ definition, plan: planChanges(definition.resources, current, options), current });
  }
  return plans;
}

/** The requests of one change, in order. */
export function requestsOf(change: Change, definition: LoadedDefinition, current: readonly Resource[]): ApiRequest[] {
  if (change.action === 'create') return [createRequest(change.kind, change.desired, definition.agentId, definition.inputs)];
  if (change.action === 'delete')
    return [deleteRequest(change.kind, change.key, current.find((r) => r.kind === change.kind && r.key === change.key)?.serverId)];
  return updateRequests(change, definition.agentId, definition.inputs);
}

/** Checks request bodies against the server's own request schemas (its published OpenAPI document). */
class ServerSchemas {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: Record<string, unknown>) {
    addFormats.default(this.ajv);
    // class-validator-jsonschema writes IsUrl as `format: url`; the server's own rule decides, not this one.
    this.ajv.addFormat('url', true);
    const components = (document['components'] as { schemas?: Record<string, unknown> } | undefined) ?? {};
    const schemas = { ...(components.schemas ?? {}) };
    // A reference the document does not define (class-validator-jsonschema writes `#/components/schemas/Array` for
    // some nested arrays) accepts anything here: the server's own answer decides for that value.
    for (const match of JSON.stringify(schemas).matchAll(/"#\/components\/schemas\/([^"]+)"/g))
      if (match[1] && !(match[1] in schemas)) schemas[match[1]] = {};
    // An unconstrained property (class-validator's @Allow) is listed as required by the document, yet may be absent.
    for (const [name, schema] of Object.entries(schemas)) {
      const { required, properties } = (schema ?? {}) as { required?: string[]; properties?: Record<string, object> };
      if (required && properties)
        schemas[name] = {
          ...(schema as object),
          required: required.filter((field) => Object.keys(properties[field] ?? { any: 1 }).length > 0),
        };
    }
    this.ajv.addSchema({ components: { ...components, schemas } }, 'openapi');
  }

  problems(schema: string | undefined, body: unknown): { path: string[]; message: string }[] {
    if (!schema) return [];
    let validate = this.compiled.get(schema);
    if (!validate) {
      try {
        validate = this.ajv.compile({ $ref: `openapi#/components/schemas/${schema}` });
      } catch {
        return []; // a server without this schema: its answer decides
      }
      this.compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => ({
      path: e.instancePath.split('/').slice(1),
      message:
        e.keyword === 'required'
          ? `${String((e.params as { missingProperty: string }).missingProperty)} is required`
          : (e.message ?? e.keyword),
    }));
  }
}

const problemAt = (definition: LoadedDefinition, change: Change, path: readonly string[], message: string): DefinitionProblem => {
  const location = definition.locations.get(locationKey(change.kind, change.key));
  if (!location) return { file: definition.document.file, line: 1, path: `${change.kind} ${change.key}`, message };
  const fullPath = [...location.path, ...path];
  return { file: location.document.file, line: location.document.lineOf(fullPath), path: fullPath.join('.'), message };
};

/**
 * Validates every request of every plan before anything is written: the server's request schemas, changes the
 * server cannot make in place, and references to guidelines that neither the files nor the server have.
 */
export async function preflight(api: TenetApi, plans: readonly AgentPlan[]): Promise<void> {
  const schemas = new ServerSchemas(await api.get<Record<string, unknown>>('/openapi.json'));
  const problems: DefinitionProblem[] = [];
  const tags = new Set((await api.get<{ id: string }[]>('/tags')).map((t) => t.id));
  for (const plan of plans) tags.add(`agent:${plan.definition.agentId}`);
  for (const { definition, plan, current } of plans) {
    for (const message of unsupportedChanges(plan.changes)) problems.push({ file: definition.document.file, line: 1, path: '', message });
    const guidelines = new Set([...definition.resources, ...current].filter((r) => r.kind === 'guidelines').map((r) => r.key));
    for (const change of plan.changes) {
      if (change.action === 'delete') continue;
      const deferred = change.kind === 'tool_services' ? definition.deferred.get(change.key) : undefined;
      if (deferred) problems.push(deferred);
      // PUT /services replaces the whole registration: credentials the server holds and the file does not give would be dropped.
      const service =
        change.kind === 'tool_services'
          ? (definition.document.definition.tool_services ?? []).find((s) => s.name === change.key)
          : undefined;
      if (service && change.action === 'update' && change.current['auth'] && !service.auth && !service.env) {
        const give =
          service.command !== undefined
            ? "add env with each value as { env: NAME } (the stdio server's environment)"
            : 'add auth with the secret as { env: NAME }';
        problems.push(
          problemAt(
            definition,
            change,
            [],
            `tool service ${change.key} has credentials on the server that the file does not give; re-registering it would drop them: ${give}`,
          ),
        );
      }
      if (change.kind !== 'agent') {
        ((change.desired['tags'] as string[] | undefined) ?? []).forEach((tag, index) => {
          if (!tags.has(tag) && !/^(agent|journey):/.test(tag))
            problems.push(
              problemAt(
                definition,
                change,
                ['tags', String(index)],
                `tag ${tag} does not exist on the server (create it with POST /tags, or use agent:<id> / journey:<id>)`,
              ),
            );
        });
      }
      for (const request of requestsOf(change, definition, current)) {
        for (const p of schemas.problems(request.schema, request.body)) problems.push(problemAt(definition, change, p.path, p.message));
      }
      if (change.kind === 'relationships') {
        for (const end of ['source', 'target'] as const) {
          const id = String(change.desired[end]);
          if (!guidelines.has(id) && !(await api.find(`/guidelines/${encodeURIComponent(id)}`)))
            problems.push(problemAt(definition, change, [end], `guideline ${id} is neither in the files nor on the server`));
        }
      }
    }
  }
  if (problems.length > 0) throw new DefinitionError(problems);
}

/** What apply did, per agent: one line per change made. */
export interface ApplyReport {
  agentId: string;
  done: string[];
}

/**
 * Makes the server match the definitions: preflight first (nothing is written when any entry would be refused),
 * then each change in dependency order. A refusal the preflight could not foresee stops the apply at that entry,
 * reported at its file and line, with what was already done.
 */
export async function applyPlans(api: TenetApi, plans: readonly AgentPlan[]): Promise<ApplyReport[]> {
  await preflight(api, plans);
  const reports: ApplyReport[] = [];
  for (const { definition, plan, current } of plans) {
    const report: ApplyReport = { agentId: definition.agentId, done: [] };
    reports.push(report);
    for (const change of plan.changes) {
      try {
        for (const request of requestsOf(change, definition, current)) await send(api, request, change);
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) {
          const details = Array.isArray(error.detail)
            ? (error.detail as { loc?: (string | number)[]; msg?: string }[])
            : [{ msg: String(error.detail) }];
          const done = reports.flatMap((r) => r.done);
          throw new DefinitionError(
            details.map((d) => ({
              ...problemAt(
                definition,
                change,
                (d.loc ?? []).filter((s) => s !== 'body').map(String),
                `${d.msg ?? ''} (refused by the server)`,
              ),
            })),
            done,
          );
        }
        throw error;
      }
      report.done.push(
        `${change.action === 'create' ? 'created' : change.action === 'update' ? 'updated' : 'deleted'} ${change.kind} ${change.key}`,
      );
    }
  }
  return reports;
}

/** Sends one request; a journey's new condition texts become condition guidelines first (the API takes their ids). */
async function send(api: TenetApi, request: ApiRequest, change: Change): Promise<void> {
  if (!request.journeyConditions) {
    await api.request(request.method, request.path, request.body);
    return;
  }
  const journey = await api.get<{ conditions: string[] }>(request.path);
  const texts = new Map<string, string>();
  for (const id of journey.conditions)
    texts.set((await api.get<{ guideline: { condition: string } }>(`/guidelines/${encodeURIComponent(id)}`)).guideline.condition, id);
  const add: string[] = [];
  for (const text of request.journeyConditions.add) {
    const created = await api.request<{ id: string }>('POST', '/guidelines', { condition: text, tags: [`journey:${change.key}`] });
    if (created) add.push(created.id);
  }
  const remove = request.journeyConditions.remove.map((text) => texts.get(text)).filter((id): id is string => id !== undefined);
  await api.request('PATCH', request.path, { ...request.body, conditions: { add, remove } });
}
