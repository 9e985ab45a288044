import { compileToolSchema, describeProblems } from '@tenet/json-schema';
import type { ToolArguments } from '@tenet/llm';

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolParameterIssue {
  guideline_id: string;
  tool_name: string;
  problem: string;
}

/**
 * Matching step 8 (docs/data-model.md#matching): tool parameters extracted from the conversation must conform to
 * the tool's parameter schema. The LLM proposes them; the one tool-argument validator (any `$schema` dialect,
 * RE2 patterns, cached compilations) checks them and only conforming ones are kept — a tool whose arguments are
 * missing or wrong, or whose schema cannot be used, is reported, never executed, and never fails the turn.
 */
export class ToolParameterValidator {
  validate(
    guidelineId: string,
    tools: readonly ToolDefinition[],
    proposed: readonly ToolArguments[] | undefined,
    wanted: readonly string[],
  ): { parameters: Record<string, Record<string, unknown>>; issues: ToolParameterIssue[] } {
    const parameters: Record<string, Record<string, unknown>> = {};
    const issues: ToolParameterIssue[] = [];
    for (const toolName of wanted) {
      const tool = tools.find((t) => t.name === toolName);
      if (!tool) {
        issues.push({ guideline_id: guidelineId, tool_name: toolName, problem: 'the agent has no tool of this name' });
        continue;
      }
      const schema = compileToolSchema(tool.parameters);
      if (!schema.ok) {
        issues.push({
          guideline_id: guidelineId,
          tool_name: toolName,
          problem: `the tool's parameter schema cannot be used: ${schema.reason}`,
        });
        continue;
      }
      const entry = proposed?.find((p) => p.tool_name === toolName);
      let args: unknown;
      try {
        args = entry ? JSON.parse(entry.arguments_json) : {};
      } catch {
        issues.push({ guideline_id: guidelineId, tool_name: toolName, problem: 'arguments are not valid JSON' });
        continue;
      }
      const check = schema.check(args);
      if (check.ok) parameters[toolName] = args as Record<string, unknown>;
      else issues.push({ guideline_id: guidelineId, tool_name: toolName, problem: describeProblems(check.problems) });
    }
    return { parameters, issues };
  }
}
