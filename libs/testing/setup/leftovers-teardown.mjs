export { teardown as default } from './leftovers.mjs';
