export { TOOL_EXECUTION, type ToolExecution } from './tool-execution.port.js';
export { ToolExecutorUnavailableError, ToolServiceError } from './errors.js';
