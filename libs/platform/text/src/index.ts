export { stem, STOP_WORDS, words } from './words.js';
