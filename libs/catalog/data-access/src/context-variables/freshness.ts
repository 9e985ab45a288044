import { createRequire } from 'node:module';
import type CronParser from 'cron-parser';

// cron-parser with luxon (~520 kB of source) is required with the first freshness rule checked (ADR 0035): every
// host with the catalog imports this file, and few check a rule while idle. CommonJS, so the checks stay synchronous.
const load = createRequire(import.meta.url);
let loaded: typeof CronParser | undefined;
const cronParser = (): typeof CronParser => (loaded ??= load('cron-parser') as typeof CronParser);

/** Whether a cron expression parses (five fields, as Parlant's `freshness_rules` examples use). */
export function isValidCron(expression: string): boolean {
  const parser = cronParser(); // outside the try: a missing package is an error of its own, not an invalid rule
  try {
    parser.parseExpression(expression);
    return true;
  } catch {
    return false;
  }
}

/**
 * A value is stale when a tick of its variable's freshness rule fell between when it was stored and now
 * ("0 * * * *": stored at 10:20, stale from 11:00). No value: stale. No rule: stored once, then kept. A
 * tool-backed variable calls its tool again then; any other treats the value as missing (to be extracted from
 * the conversation again, or asked for).
 */
export function isStale(lastModified: string | undefined, freshnessRule: string | undefined, now: Date): boolean {
  if (lastModified === undefined) return true;
  if (freshnessRule === undefined) return false;
  const lastTick = cronParser().parseExpression(freshnessRule, { currentDate: now, utc: true }).prev().toDate();
  return lastTick.getTime() > Date.parse(lastModified);
}

/** A stored value of a variable without a tool, unless its freshness rule says it is stale (then: missing). */
export function unlessStale<T extends { last_modified?: string }>(
  stored: T | undefined,
  variable: { tool_id?: unknown; freshness_rules?: string },
  now: Date,
): T | undefined {
  if (stored === undefined || variable.tool_id || variable.freshness_rules === undefined) return stored;
  return isStale(stored.last_modified, variable.freshness_rules, now) ? undefined : stored;
}
