import { createRequire } from 'node:module';
import type * as BullMq from 'bullmq';

const load = createRequire(import.meta.url);

/**
 * BullMQ, loaded when the first queue or worker is made (ADR 0035): a process that schedules nothing on Redis — the
 * journey engine, the matcher, an embedded all-in-one — never loads it. One (CommonJS) copy for every Tenet
 * adapter, so its error classes are the same ones its workers check.
 */
export const loadBullMq = (): typeof BullMq => load('bullmq') as typeof BullMq;
