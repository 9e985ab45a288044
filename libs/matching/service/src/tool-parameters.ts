import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { re2RegExp, type ToolArguments } from '@tenet/llm';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

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
 * Seed 000 §8 step 8 and GuidelineMatch rule 3: tool parameters extracted from the conversation must conform to
 * the tool's parameter schema. The LLM proposes them; this checks them (ajv, compiled once per schema) and keeps
 * only conforming ones — a tool whose arguments are missing or wrong is reported, never executed with them.
 */
export class ToolParameterValidator {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, code: { regExp: re2RegExp } }));
  private readonly compiled = new Map<string, ValidateFunction>();

  validate(guidelineId: string, tools: readonly ToolDefinition[], proposed: readonly ToolArguments[] | undefined, wanted: readonly string[]): { parameters: Record<string, Record<string, unknown>>; issues: ToolParameterIssue[] } {
    const parameters: Record<string, Record<string, unknown>> = {};
    const issues: ToolParameterIssue[] = [];
    for (const toolName of wanted) {
      const tool = tools.find((t) => t.name === toolName);
      if (!tool) {
        issues.push({ guideline_id: guidelineId, tool_name: toolName, problem: 'the agent has no tool of this name' });
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
      const validate = this.validator(tool);
      if (validate(args)) parameters[toolName] = args as Record<string, unknown>;
      else issues.push({ guideline_id: guidelineId, tool_name: toolName, problem: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`).join('; ') });
    }
    return { parameters, issues };
  }

  private validator(tool: ToolDefinition): ValidateFunction {
    const key = `${tool.name}:${JSON.stringify(tool.parameters)}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(tool.parameters);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
