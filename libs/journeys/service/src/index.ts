export { JourneyEngine } from './journey-engine.js';
export { JourneyEngineModule } from './journey-engine.module.js';
export { JOURNEY_ENGINE_QUEUE_GROUP } from './journeys.rpc.controller.js';
