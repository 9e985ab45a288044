export {
  AllInOneHostModule,
  ChannelGatewayHostModule,
  GatewayHostModule,
  JourneyEngineHostModule,
  MatcherHostModule,
  MemoryStoreHostModule,
  MeteringHostModule,
  type HostOptions,
} from './hosts.module.js';
export { HealthHttpController } from './health.http.controller.js';
export { MetricsHttpController } from './metrics.http.controller.js';
export { closeOnSignals, startMessageHandlers } from './service-host.js';
export { startAllInOne, startChannelGatewayOnly, startGatewayOnly, startMemoryStoreOnly } from './testing-host.js';
export {
  DemoNeedsKeyError,
  loadDemoAgent,
  startDemoOrderService,
  type DemoLoadOptions,
  type DemoOrderService,
  type DemoToolServices,
} from './demo.js';
export { ToolExecutorHostModule } from './tool-executor.host.js';
