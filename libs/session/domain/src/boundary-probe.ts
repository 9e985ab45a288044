import { decide } from './session-lifecycle.js';
export const probe = decide;
