export { runToolCall, toolFieldValues, type RunnableTool, type TurnToolCall, type WantedCall } from './tool-calls.js';
export { TOOL_EVENT_LOG, TurnTools, type ToolEventLog, type ToolRun, type TurnToolLog } from './turn-tools.js';
