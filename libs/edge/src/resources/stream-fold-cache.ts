// The read models moved to @tenet/event-store so that services outside the gateway reuse them (ADR 0025).
export { DEFAULT_FOLD_CACHE_CAPACITY, StreamFoldCache } from '@tenet/event-store';
