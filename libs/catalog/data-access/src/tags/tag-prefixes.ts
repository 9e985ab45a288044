/** Parlant's synthetic tag ids that scope an item to one agent or one journey (no imports: safe for any repository). */
export const AGENT_TAG_PREFIX = 'agent:';
export const JOURNEY_TAG_PREFIX = 'journey:';
