// The demo agent and its order-status tool service (`@tenet/hosts/demo`): no Nest module, so the dev launcher can seed
// the demo without loading any application code (ADR 0035).
export { DemoNeedsKeyError, loadDemoAgent, type DemoLoadOptions, type DemoToolServices } from './demo-agent.js';
export { startDemoOrderService, type DemoOrderService } from './demo-order-service.js';
