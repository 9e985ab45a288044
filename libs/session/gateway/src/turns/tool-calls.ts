/** Tool calls go through the tool executor's client (`@tenet/tools-client`); the turn's context runs its tool-backed variables with it. */
export { runToolCall } from '@tenet/tools-client';
