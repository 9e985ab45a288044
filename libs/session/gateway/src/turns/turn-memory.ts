/** The turn's memory is the memory store's client (`@tenet/memory-client`); the turn's preparation begins it from here. */
export { TurnMemory, type TurnMemoryRun } from '@tenet/memory-client';
