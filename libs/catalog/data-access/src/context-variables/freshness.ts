import cronParser from 'cron-parser';

/** Whether a cron expression parses (five fields, as Parlant's `freshness_rules` examples use). */
export function isValidCron(expression: string): boolean {
  try {
    cronParser.parseExpression(expression);
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
  const lastTick = cronParser.parseExpression(freshnessRule, { currentDate: now, utc: true }).prev().toDate();
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
