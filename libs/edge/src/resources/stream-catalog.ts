// The read models moved to @tenet/event-store so that services outside the gateway reuse them (ADR 0025).
export { CATALOG_PAGE, StreamCatalog } from '@tenet/event-store';
