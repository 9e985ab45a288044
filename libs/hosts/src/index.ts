export { AllInOneHostModule, GatewayHostModule, MatcherHostModule, MemoryStoreHostModule, MeteringHostModule, type HostOptions } from './hosts.module.js';
export { HealthHttpController } from './health.http.controller.js';
export { MetricsHttpController } from './metrics.http.controller.js';
export { closeOnSignals, startMessageHandlers } from './service-host.js';
export { startAllInOne, startGatewayOnly } from './testing-host.js';
export { loadDemoAgent } from './demo-agent.js';
export { ToolExecutorHostModule } from './tool-executor-host.js';
