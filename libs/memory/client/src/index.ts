export { TurnMemory, TurnMemoryRun, type RememberedForReply, type TurnDeadline, type TurnMemoryInput } from './turn-memory.js';
