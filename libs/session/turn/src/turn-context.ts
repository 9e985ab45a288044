import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { WorkspaceDirectory } from '@tenet/edge';
import {
  type ContextVariableView,
  ContextVariablesRepository,
  GUEST_CUSTOMER_ID,
  guestSessionKey,
  isStale,
  unlessStale,
  serviceRef,
  ServicesRepository,
  TOOL_RUNNER,
  type ToolRunner,
  scopedToAgent,
  type TermView,
  type CapabilityView,
} from '@tenet/catalog-data-access';
import { runToolCall } from '@tenet/tools-client';
import type { TurnDefinitions } from './turn-definitions.js';
import { missingRequiredContext } from '@tenet/matching-domain';

/** Parlant's key for a context variable's value that applies to every customer. */
const DEFAULT_KEY = 'DEFAULT';

const capabilityItem = ({ id, title, description, signals }: CapabilityView) => ({ id, title, description, signals });
const termItem = ({ name, description, synonyms }: TermView) => ({ name, description, synonyms });
/** A variable's value goes into the turn under its name. */
const variableName = (variable: ContextVariableView): string => {
  if (typeof variable.name !== 'string' || variable.name === '') throw new Error('name must be a non-empty string');
  return variable.name;
};

/**
 * What a turn knows besides the guidelines: the customer's context-variable values (matching step 3
 * checks `required_context` against them) and the agent's glossary. Which guidelines earlier replies in the
 * session applied (Parlant's applied-guideline tracking, recorded on each `ready` status) comes with the
 * history from `readTurnTail` (turn-history.ts).
 */
@Injectable()
export class TurnContext {
  private readonly logger = new Logger(TurnContext.name);

  constructor(
    private readonly variables: ContextVariablesRepository,
    private readonly services: ServicesRepository,
    @Optional() @Inject(TOOL_RUNNER) private readonly tools?: ToolRunner,
    @Optional() private readonly workspaces?: WorkspaceDirectory,
  ) {}

  /**
   * Variable name → value for this customer: their own value, else the DEFAULT one, else the variable's default.
   * A guest's own value is the one extracted in this session (`session:<id>`, see `guestSessionKey`).
   * With `refresh` (a turn), a tool-backed variable (Parlant's `tool_id`) whose value is missing or stale by its
   * `freshness_rules` is first filled by calling its tool through the executor, for this customer. A value of a
   * variable without a tool that its `freshness_rules` says is stale counts as missing.
   * A variable that cannot be read is left out of the turn (`defs`), not the turn failed.
   */
  async values(
    agentId: string,
    customerId: string,
    defs: TurnDefinitions,
    refresh?: { sessionId: string; traceId: string; timeoutSecs: number; now: Date },
  ): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    // The definitions come from the turn's snapshot (`defs.current`); the values are read now.
    for (const variable of defs.current.variables) {
      if (!defs.usable('context_variable', variable, variableName) || !scopedToAgent(variable.tags, agentId)) continue;
      try {
        if (refresh && variable.tool_id) await this.refreshFromTool(variable, agentId, customerId, refresh);
        const now = refresh?.now ?? new Date();
        const fresh = <T extends { last_modified?: string }>(stored: T | undefined): T | undefined => unlessStale(stored, variable, now);
        const session =
          customerId === GUEST_CUSTOMER_ID && refresh
            ? fresh(await this.variables.getValue(variable.id, guestSessionKey(refresh.sessionId)))
            : undefined;
        const value =
          session ??
          fresh(await this.variables.getValue(variable.id, customerId)) ??
          fresh(await this.variables.getValue(variable.id, DEFAULT_KEY));
        if (value !== undefined) values[variable.name] = value.data;
        else if (variable.default_value !== undefined) values[variable.name] = variable.default_value;
      } catch (error) {
        defs.skip('context_variable', variable, error);
      }
    }
    return values;
  }

  /**
   * The agent's `required` variables (docs/data-model.md#context-variables) (in its scope, readable) with no value in `values` — the turn
   * asks for them (`askForMissingContext`) and lists them on `ready` as `missing_context`.
   */
  async missingRequired(
    agentId: string,
    values: Readonly<Record<string, unknown>>,
    defs: TurnDefinitions,
  ): Promise<{ name: string; required: boolean }[]> {
    const scoped = defs.current.variables.filter(
      (v) => defs.usable('context_variable', v, variableName) && v.required && scopedToAgent(v.tags, agentId),
    );
    return missingRequiredContext(scoped, values).map(({ name, required }) => ({ name, required }));
  }

  /** The agent's capabilities; the matcher picks the few relevant to the conversation. */
  async capabilities(
    agentId: string,
    defs: TurnDefinitions,
  ): Promise<{ id: string; title: string; description: string; signals: string[] }[]> {
    return defs.current.capabilities
      .filter((c) => defs.usable('capability', c, capabilityItem) && scopedToAgent(c.tags, agentId))
      .map(capabilityItem);
  }

  /**
   * Calls the variable's tool (arguments: `customer_id` when its schema has that parameter) and stores the
   * result's data as the customer's value. A failure keeps the previous value and is logged: the turn goes on.
   */
  private async refreshFromTool(
    variable: ContextVariableView,
    agentId: string,
    customerId: string,
    refresh: { sessionId: string; traceId: string; timeoutSecs: number; now: Date },
  ): Promise<void> {
    const current = await this.variables.getValue(variable.id, customerId);
    if (!variable.tool_id || !isStale(current?.last_modified, variable.freshness_rules, refresh.now)) return;
    const found = await this.services.tool(variable.tool_id.service_name, variable.tool_id.tool_name);
    if (!found) {
      this.logger.warn(
        `context variable ${variable.name}: tool ${variable.tool_id.service_name}:${variable.tool_id.tool_name} is no longer registered`,
      );
      return;
    }
    const properties = (found.tool.parameters.properties ?? {}) as Record<string, unknown>;
    const args = 'customer_id' in properties ? { customer_id: customerId } : {};
    const service = serviceRef(found.service);
    const workspaceId = await this.workspaces?.ownerOf('agents', agentId);
    const result = await runToolCall(
      this.tools,
      {
        name: `${service.name}:${found.tool.name}`,
        description: found.tool.description,
        parameters: found.tool.parameters,
        timeout_secs: refresh.timeoutSecs,
        allow_failure: true,
        service,
        tool_name: found.tool.name,
      },
      args,
      {
        sessionId: refresh.sessionId,
        traceId: `${refresh.traceId}-ctx-${variable.id}`,
        agentId,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
      },
    );
    if (result.status !== 'succeeded') {
      this.logger.warn(
        `context variable ${variable.name}: tool call failed (${result.error?.code ?? 'unknown'}), keeping the previous value`,
      );
      return;
    }
    try {
      await this.variables.setValue(variable.id, customerId, result.result?.data, refresh.now);
    } catch (error) {
      this.logger.warn(
        `context variable ${variable.name}: the tool's data does not fit the variable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  async glossary(agentId: string, defs: TurnDefinitions): Promise<{ name: string; description: string; synonyms: string[] }[]> {
    return defs.current.terms.filter((term) => defs.usable('term', term, termItem) && scopedToAgent(term.tags, agentId)).map(termItem);
  }
}
