import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Inject, Optional, Param, Put, Req } from '@nestjs/common';
import { DEFAULT_WORKSPACE } from '@tenet/contracts';
import { toolSchemaProblem } from '@tenet/json-schema';
import { secretBoxFromEnv } from '@tenet/secrets';
import type { Request } from 'express';
import { callerOf, notFound, UnprocessableEntity, ID_PATTERN, violation, WorkspaceDirectory } from '@tenet/edge';
import {
  SERVICE_KINDS,
  ServiceUpdateDto,
  type McpServiceParamsDto,
  type ServiceView,
  type StoredService,
  type StoredTool,
  type ToolView,
  credentialProblems,
  sealCredentials,
  serviceRef,
  ServicesRepository,
  NoToolExecutorError,
  TOOL_RUNNER,
  type ToolRunner,
} from '@tenet/catalog-data-access';

/** Tenet's own name for the tools defined on agents (Parlant's associations name a service); no service may take it. */
export const AGENT_TOOLS_SERVICE = 'tenet';

/**
 * The executor's describe errors: what each means for the registration. Every one is the registrant's problem (a
 * 422 naming the field: `source` for an OpenAPI document, else `url`), except an executor that does not answer.
 */
const DESCRIBE_ERRORS: Record<string, string> = {
  'TOOLS.SERVICE_UNREACHABLE': 'the service could not be reached',
  'TOOLS.INVALID_DOCUMENT': 'the service answered with an invalid tool description',
  'TOOLS.TARGET_NOT_ALLOWED':
    'the target is not allowed (loopback, private, link-local and metadata addresses are refused unless TENET_TOOL_ALLOWED_HOSTS permits them)',
  'TOOLS.TIMEOUT': 'the service did not answer in time',
  'TOOLS.HTTP_ERROR': 'the service answered with an HTTP error',
  'TOOLS.RESPONSE_TOO_LARGE': 'the service answered with a description larger than the executor accepts (TENET_TOOL_MAX_RESPONSE_BYTES)',
  'TOOLS.CANCELLED': 'describing the service was cancelled',
  'TOOLS.TOOL_ERROR': 'the service refused to describe its tools',
  'TOOLS.INVALID_REQUEST': 'the executor refused the service definition',
};

/**
 * An MCP server the executor runs as a child process: one command OR a url, string env values, and only for the
 * operator's `default` workspace — a command runs on the executor's host, which no tenant may choose (ADR 0022).
 */
function stdioOf(params: McpServiceParamsDto & { command: string }, workspace: string): NonNullable<StoredService['stdio']> {
  const problems = [
    ...(params.url !== undefined
      ? [violation(['mcp', 'url'], 'give either url (an HTTP server) or command (a stdio server), not both', 'value_error.extra')]
      : []),
    ...(workspace !== DEFAULT_WORKSPACE
      ? [
          violation(
            ['mcp', 'command'],
            `stdio MCP servers run a command on the tool executor's host: only the default workspace's admins may register one (this key is of workspace ${workspace})`,
            'value_error.forbidden',
          ),
        ]
      : []),
    ...Object.entries(params.env ?? {}).flatMap(([key, value]) => [
      ...(!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
        ? [
            violation(
              ['mcp', 'env', key],
              'environment variable names are letters, digits and _ (not starting with a digit)',
              'value_error',
            ),
          ]
        : []),
      ...(typeof value !== 'string' || value.length > 8192
        ? [violation(['mcp', 'env', key], 'environment values must be strings of at most 8192 characters', 'type_error.str')]
        : []),
    ]),
  ];
  if (problems.length > 0) throw new UnprocessableEntity(problems);
  return { command: params.command, ...(params.args ? { args: [...params.args] } : {}) };
}

const codeOf = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/** Parlant's `ToolDTO`: the JSON Schema's properties as parameters, each with its type, description and enum. */
export function toolView(tool: StoredTool): ToolView {
  const properties = (tool.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  return {
    creation_utc: tool.creation_utc,
    name: tool.name,
    description: tool.description,
    parameters: Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [
        name,
        {
          type: typeof schema['type'] === 'string' ? schema['type'] : 'string',
          ...(typeof schema['description'] === 'string' ? { description: schema['description'] } : {}),
          ...(Array.isArray(schema['enum']) ? { enum: schema['enum'] as unknown[] } : {}),
        },
      ]),
    ),
    required: tool.parameters.required ?? [],
  };
}

/** Parlant's ServiceDTO; a read of one OpenAPI service also lists the operations that are not tools (`skipped`, a Tenet extension). */
const serviceView = (service: StoredService, withTools: boolean): ServiceView => ({
  name: service.name,
  kind: service.kind,
  url: service.url,
  ...(withTools ? { tools: service.tools.map(toolView) } : {}),
  ...(service.auth
    ? { auth: { scheme: service.auth.scheme, ...(service.auth.secret_hint ? { secret_hint: service.auth.secret_hint } : {}) } }
    : {}),
  ...(withTools && service.skipped ? { skipped: service.skipped } : {}),
});

/**
 * Parlant's `/services` (client.services.*): a tool service is registered by name with its kind's parameters;
 * the tool executor fetches its description (OpenAPI document, MCP `tools/list`, or the SDK's `GET /tools`)
 * and the service is stored with its tools. Nothing is stored when the executor cannot describe it.
 */
@Controller('services')
export class ServicesHttpController {
  constructor(
    private readonly services: ServicesRepository,
    private readonly directory: WorkspaceDirectory,
    @Optional() @Inject(TOOL_RUNNER) private readonly runner?: ToolRunner,
  ) {}

  @Put(':name')
  async put(@Param('name') name: string, @Body() body: ServiceUpdateDto, @Req() request: Request): Promise<ServiceView> {
    if (!ID_PATTERN.test(name))
      throw new UnprocessableEntity([
        { loc: ['path', 'name'], msg: 'name must be 1-64 characters of [A-Za-z0-9_-]', type: 'value_error.name' },
      ]);
    if (name === AGENT_TOOLS_SERVICE)
      throw new UnprocessableEntity([
        {
          loc: ['path', 'name'],
          msg: `name ${AGENT_TOOLS_SERVICE} is reserved for the tools defined on agents`,
          type: 'value_error.reserved',
        },
      ]);
    const params = body[body.kind];
    const others = SERVICE_KINDS.filter((kind) => kind !== body.kind && body[kind] !== undefined);
    if (!params)
      throw new UnprocessableEntity([violation([body.kind], `${body.kind} is required when kind is ${body.kind}`, 'value_error.missing')]);
    if (others.length > 0)
      throw new UnprocessableEntity(
        others.map((kind) => violation([kind], `${kind} must be absent when kind is ${body.kind}`, 'value_error.extra')),
      );
    const workspace = callerOf(request)?.workspaceId ?? DEFAULT_WORKSPACE;
    const stdio =
      'command' in params && params.command !== undefined
        ? stdioOf(params as McpServiceParamsDto & { command: string }, workspace)
        : undefined;
    const service = {
      name,
      kind: body.kind,
      url: stdio ? `stdio:${encodeURIComponent(stdio.command)}` : (params.url ?? ''),
      ...('source' in params ? { source: params.source } : {}),
      ...(stdio ? { stdio } : {}),
    };
    await this.refuseDefaultsName(workspace, name);
    if (stdio && body.auth !== undefined)
      throw new UnprocessableEntity([
        violation(
          ['auth'],
          'auth applies to servers reached over HTTP; give a stdio server its secrets in mcp.env (sealed the same way)',
          'value_error.extra',
        ),
      ]);
    // A stdio server's env is stored sealed like any credential: it often holds the server's own API keys.
    const env = stdio && 'env' in params && params.env && Object.keys(params.env).length > 0 ? params.env : undefined;
    const auth =
      body.auth !== undefined ? this.sealed(name, body.auth) : env ? this.sealed(name, { scheme: 'env', env }, false) : undefined;
    if (auth) Object.assign(service, { auth });
    if (!this.runner) throw new HttpException({ detail: new NoToolExecutorError().message }, HttpStatus.SERVICE_UNAVAILABLE);
    let description: Awaited<ReturnType<ToolRunner['describe']>>;
    try {
      description = await this.runner.describe(serviceRef({ ...service, tools: [], creation_utc: '' }));
    } catch (error) {
      const code = codeOf(error);
      if (code === 'TOOLS.EXECUTOR_UNAVAILABLE')
        throw new HttpException({ detail: error instanceof Error ? error.message : String(error) }, HttpStatus.SERVICE_UNAVAILABLE);
      const known =
        code === 'TOOLS.TARGET_NOT_ALLOWED' && stdio
          ? 'the command may not run on the tool executor'
          : code
            ? DESCRIBE_ERRORS[code]
            : undefined;
      if (!known || !code) throw error;
      const field = 'source' in params ? 'source' : stdio ? 'command' : 'url';
      throw new UnprocessableEntity([
        violation([body.kind, field], `${known}: ${error instanceof Error ? error.message : String(error)}`, code),
      ]);
    }
    // A tool whose parameter schema Tenet cannot compile could never be called: refused now, naming it, rather than
    // set aside in every turn later.
    const { tools, skipped } = description;
    const unusable = tools.flatMap((tool) => {
      const problem = toolSchemaProblem(tool.parameters);
      return problem === undefined
        ? []
        : [
            violation(
              [body.kind, 'tools', tool.name, 'parameters'],
              `tool ${tool.name}: its parameter schema cannot be used: ${problem}`,
              'TOOLS.INVALID_SCHEMA',
            ),
          ];
    });
    if (unusable.length > 0) throw new UnprocessableEntity(unusable);
    await this.claim(workspace, name);
    return serviceView(
      await this.services.put({ ...service, tools, ...(skipped && skipped.length > 0 ? { skipped } : {}) }, new Date()),
      true,
    );
  }

  /** The credentials sealed for storage; refused when they break a rule (422) or no key is configured (503). */
  private sealed(name: string, auth: Record<string, unknown>, validate = true): NonNullable<StoredService['auth']> {
    const problems = validate ? credentialProblems(auth) : [];
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    const box = secretBoxFromEnv(process.env);
    if (!box)
      throw new HttpException(
        {
          detail:
            "tool-service credentials (auth, and a stdio server's env) are stored encrypted and TENET_SECRETS_KEY is not set on this gateway (64 hex characters, e.g. `openssl rand -hex 32`): nothing was stored",
        },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    return sealCredentials(box, name, auth);
  }

  /**
   * Service names are one namespace: a name belongs to the first workspace that registers it (the auth guard lets
   * another workspace's PUT through only for a name nobody has recorded). A name the `default` workspace holds
   * from before names were recorded is not free.
   */
  private async refuseDefaultsName(workspace: string, name: string): Promise<void> {
    if (workspace === DEFAULT_WORKSPACE) return;
    if ((await this.directory.recordedOwner('services', name)) === undefined && (await this.services.get(name)) !== undefined)
      throw notFound('service', name);
  }

  /** Records the name for the workspace; first claim wins, so of two workspaces racing for a new name one gets 404. */
  private async claim(workspace: string, name: string): Promise<void> {
    await this.directory.assign('services', name, workspace);
    if ((await this.directory.ownerOf('services', name)) !== workspace) throw notFound('service', name);
  }

  @Get()
  async list(): Promise<ServiceView[]> {
    return (await this.services.list()).map((s) => serviceView(s, false));
  }

  @Get(':name')
  async read(@Param('name') name: string): Promise<ServiceView> {
    const service = await this.services.get(name);
    return service ? serviceView(service, true) : Promise.reject(notFound('service', name));
  }

  @Delete(':name')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('name') name: string): Promise<void> {
    if (!(await this.services.delete(name))) throw notFound('service', name);
  }
}
