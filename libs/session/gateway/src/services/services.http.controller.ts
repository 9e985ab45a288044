import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Inject, Optional, Param, Put } from '@nestjs/common';
import { notFound, UnprocessableEntity } from '../http/validation.js';
import { ID_PATTERN } from '../ids.js';
import { violation } from '../tags/rule-violation.js';
import { SERVICE_KINDS, ServiceUpdateDto, type ServiceView, type StoredService, type StoredTool, type ToolView } from './service.dto.js';
import { ServicesRepository } from './services.repository.js';
import { NoToolExecutorError, TOOL_RUNNER, type ToolRunner } from './tool-runner.js';

/** Tenet's own name for the tools defined on agents (Parlant's associations name a service); no service may take it. */
export const AGENT_TOOLS_SERVICE = 'tenet';

/** The executor's stable describe errors, and the field of the request each one is about. */
const DESCRIBE_ERRORS: Record<string, { field: 'url' | 'source'; what: string }> = {
  'TOOLS.SERVICE_UNREACHABLE': { field: 'url', what: 'the service could not be reached' },
  'TOOLS.INVALID_DOCUMENT': { field: 'url', what: 'the service answered with an invalid tool description' },
  'TOOLS.TARGET_NOT_ALLOWED': { field: 'url', what: 'the target is not allowed (loopback, private, link-local and metadata addresses are refused unless TENET_TOOL_ALLOWED_HOSTS permits them)' },
};

const codeOf = (error: unknown): string | undefined => (error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined);

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

const serviceView = (service: StoredService, withTools: boolean): ServiceView => ({ name: service.name, kind: service.kind, url: service.url, ...(withTools ? { tools: service.tools.map(toolView) } : {}) });

/**
 * Parlant's `/services` (client.services.*): a tool service is registered by name with its kind's parameters;
 * the tool executor fetches its description (OpenAPI document, MCP `tools/list`, or the SDK's `GET /tools`)
 * and the service is stored with its tools. Nothing is stored when the executor cannot describe it.
 */
@Controller('services')
export class ServicesHttpController {
  constructor(
    private readonly services: ServicesRepository,
    @Optional() @Inject(TOOL_RUNNER) private readonly runner?: ToolRunner,
  ) {}

  @Put(':name')
  async put(@Param('name') name: string, @Body() body: ServiceUpdateDto): Promise<ServiceView> {
    if (!ID_PATTERN.test(name)) throw new UnprocessableEntity([{ loc: ['path', 'name'], msg: 'name must be 1-64 characters of [A-Za-z0-9_-]', type: 'value_error.name' }]);
    if (name === AGENT_TOOLS_SERVICE) throw new UnprocessableEntity([{ loc: ['path', 'name'], msg: `name ${AGENT_TOOLS_SERVICE} is reserved for the tools defined on agents`, type: 'value_error.reserved' }]);
    const params = body[body.kind];
    const others = SERVICE_KINDS.filter((kind) => kind !== body.kind && body[kind] !== undefined);
    if (!params) throw new UnprocessableEntity([violation([body.kind], `${body.kind} is required when kind is ${body.kind}`, 'value_error.missing')]);
    if (others.length > 0) throw new UnprocessableEntity(others.map((kind) => violation([kind], `${kind} must be absent when kind is ${body.kind}`, 'value_error.extra')));
    const service = { name, kind: body.kind, url: params.url, ...('source' in params ? { source: params.source } : {}) };
    if (!this.runner) throw new HttpException({ detail: new NoToolExecutorError().message }, HttpStatus.SERVICE_UNAVAILABLE);
    let tools: Awaited<ReturnType<ToolRunner['describe']>>;
    try {
      tools = await this.runner.describe(service);
    } catch (error) {
      const code = codeOf(error);
      const known = code ? DESCRIBE_ERRORS[code] : undefined;
      if (!known) throw error;
      const field = code === 'TOOLS.INVALID_DOCUMENT' && 'source' in params ? 'source' : known.field;
      throw new UnprocessableEntity([violation([body.kind, field], `${known.what}: ${error instanceof Error ? error.message : String(error)}`, code ?? 'value_error')]);
    }
    return serviceView(await this.services.put({ ...service, tools }, new Date()), true);
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
