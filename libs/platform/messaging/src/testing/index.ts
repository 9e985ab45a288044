export { messageBusConformance, type MessageBusHarness } from './message-bus.conformance.js';
export { tenetTransportConformance } from './tenet-transport.conformance.js';
