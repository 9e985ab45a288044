export { checkArguments, describeProblems, type ArgumentCheck, type ArgumentProblem } from './arguments.js';
export { invocationEventId, invocationRecord, type InvocationOutcome, type InvocationRecord } from './invocation.js';
export {
  InvalidOpenApiDocumentError,
  operationsFromOpenApi,
  placeArguments,
  type ArgumentPlacement,
  type BodyEncoding,
  type OpenApiOperation,
  type PlacedArguments,
  type SkippedOperation,
} from './openapi.js';
export {
  descriptorsFromPluginTools,
  InvalidPluginResponseError,
  pluginCallOutcome,
  splitJsonObjects,
  type PluginCallOutcome,
  type PluginToolDescriptor,
} from './parlant-plugin.js';
export { isRetryableStatus, MAX_RETRY_DELAY_MS, NO_RETRY, nextRetryDelay, type AttemptFailure, type RetryConfig } from './retry.js';
