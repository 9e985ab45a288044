export { TEST_TOOLS, ToolBackend, type BackendOutcome } from './tool-backend.js';
export {
  startMcpToolServer,
  startOpenApiToolServer,
  startSdkToolServer,
  startToolServer,
  TEST_OPENAPI_DOCUMENT,
  type TestToolServer,
} from './tool-servers.js';
export { toolProtocolConformance } from './tool-protocol.conformance.js';
export { toolWorkQueueConformance } from './tool-work-queue.conformance.js';
