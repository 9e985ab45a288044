import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ToolOutcome } from '@tenet/llm';
import type { AskedToolCall } from '@tenet/session-domain';
import { TOOL_RUNNER, type ToolRunner, type ToolServiceRef } from '@tenet/catalog-data-access';
import { WorkspaceDirectory } from '@tenet/edge';
import { runToolCall, toOutcome, type RunnableTool, type TurnToolCall, type WantedCall } from './tool-calls.js';

/** A call that can run: its `service:tool` id, the tool and the arguments the matcher checked. */
export interface ToolRun {
  toolId: string;
  tool: RunnableTool & { service: ToolServiceRef; tool_name: string };
  args: Record<string, unknown>;
}

export type ToolRunOutcome = Awaited<ReturnType<typeof runToolCall>>;

/** What the turn's tool calls produced so far: `ready` lists them, the model reads their results. */
export interface TurnToolLog {
  calls: TurnToolCall[];
  outcomes: ToolOutcome[];
  issues: { tool_name: string; problem: string }[];
}

/**
 * Where a turn's calls are recorded: the session's log, one `tool` event per round (the session gateway binds its
 * events service to this token).
 */
export const TOOL_EVENT_LOG = Symbol.for('tenet.tools.turn-tool-event-log');

export interface ToolEventLog {
  append(
    sessionId: string,
    event: { kind: 'tool'; source: 'ai_agent'; data: { tool_calls: ReturnType<typeof toolEventCall>[] } },
    correlationId: string,
  ): Promise<unknown>;
}

/** Identifies a call by its tool and arguments: the same call is never run twice in one turn. */
export const callKey = (call: WantedCall): string => JSON.stringify([call.tool_name, call.parameters ?? {}]);

/** The calls of a turn through the tool executor, each recorded as one `tool` event in Parlant's shape. */
@Injectable()
export class TurnTools {
  private readonly logger = new Logger(TurnTools.name);

  constructor(
    @Inject(TOOL_EVENT_LOG) private readonly events: ToolEventLog,
    @Optional() @Inject(TOOL_RUNNER) private readonly runner?: ToolRunner,
    @Optional() private readonly workspaces?: WorkspaceDirectory,
  ) {}

  /** The matcher's calls resolved against the agent's tools: `toolId` only for those that can run. */
  resolve(
    wanted: readonly WantedCall[],
    runnable: ReadonlyMap<string, RunnableTool>,
  ): { asked: AskedToolCall[]; runs: Map<string, ToolRun> } {
    const runs = new Map<string, ToolRun>();
    const asked = wanted.map((call): AskedToolCall => {
      const tool = runnable.get(call.tool_name);
      const key = callKey(call);
      if (!tool?.service || !tool.tool_name) return { key, toolName: call.tool_name, allowFailure: tool?.allow_failure ?? false };
      const run: ToolRun = {
        toolId: `${tool.service.name}:${tool.tool_name}`,
        tool: { ...tool, service: tool.service, tool_name: tool.tool_name },
        args: call.parameters ?? {},
      };
      runs.set(key, run);
      return { key, toolName: call.tool_name, toolId: run.toolId, allowFailure: tool.allow_failure };
    });
    return { asked, runs };
  }

  /** A tool asked for that has nowhere to run is reported (`tool_issues` on `ready`), never silently skipped. */
  reportUnrunnable(names: readonly string[], runnable: ReadonlyMap<string, RunnableTool>, log: TurnToolLog): void {
    for (const name of names) {
      const problem = runnable.get(name)?.unrunnable ?? 'the agent has no tool of this name';
      log.issues.push({ tool_name: name, problem });
      this.logger.warn(`tool ${name} was asked for but cannot run: ${runnable.get(name)?.unrunnable ?? 'unknown tool'}`);
    }
  }

  /** Runs the calls at once, appends one `tool` event with each result (or its error), and adds them to `log`. */
  async run(
    sessionId: string,
    correlationId: string,
    agentId: string,
    runs: readonly ToolRun[],
    log: TurnToolLog,
  ): Promise<ToolRunOutcome[]> {
    const workspaceId = await this.workspaces?.ownerOf('agents', agentId);
    const context = { sessionId, traceId: correlationId, agentId, ...(workspaceId !== undefined ? { workspaceId } : {}) };
    const results = await Promise.all(runs.map((r) => runToolCall(this.runner, r.tool, r.args, context)));
    await this.events.append(
      sessionId,
      { kind: 'tool', source: 'ai_agent', data: { tool_calls: runs.map((r, i) => toolEventCall(r, results[i])) } },
      correlationId,
    );
    runs.forEach((r, i) => {
      const result = results[i];
      if (!result) return;
      log.calls.push({
        tool_id: r.toolId,
        arguments: r.args,
        status: result.status,
        attempts: result.attempts,
        duration_ms: result.duration_ms,
        replayed: result.replayed,
        ...(result.error ? { error: result.error } : {}),
      });
      log.outcomes.push(toOutcome(r.toolId, r.args, result));
    });
    return results;
  }
}

const toolEventCall = (run: ToolRun, result: ToolRunOutcome | undefined) => ({
  tool_id: run.toolId,
  arguments: run.args,
  result:
    result?.status === 'succeeded' && result.result
      ? result.result
      : { data: null, metadata: { error: result?.error ?? { code: 'TOOLS.FAILED', message: 'failed' } }, control: {} },
});
