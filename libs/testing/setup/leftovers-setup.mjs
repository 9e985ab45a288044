export { setup as default } from './leftovers.mjs';
