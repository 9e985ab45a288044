export { messageBusConformance, type MessageBusHarness } from './message-bus.conformance.js';
