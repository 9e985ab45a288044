// The read models moved to @tenet/event-store so that services outside the gateway reuse them (ADR 0025).
export { crudEvolve, ResourceIdTakenError, ResourceStreams, type Evolve, type ResourceEvent } from '@tenet/event-store';
