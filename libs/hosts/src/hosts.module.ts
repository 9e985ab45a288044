// Every host of Tenet, for tests and the testing hosts. An app imports only its own host file (`@tenet/hosts/<service>`).
export { AllInOneHostModule } from './all-in-one.host.js';
export { ChannelGatewayHostModule } from './channel-gateway.host.js';
export { GatewayHostModule } from './gateway.host.js';
export { type HostOptions } from './host-basics.js';
export { JourneyEngineHostModule } from './journey-engine.host.js';
export { MatcherHostModule } from './matcher.host.js';
export { MemoryStoreHostModule } from './memory-store.host.js';
export { MeteringHostModule } from './metering.host.js';
