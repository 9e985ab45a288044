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
 * A tool-backed value is stale when a tick of its freshness rule fell between when it was fetched and now
 * ("0 * * * *": fetched at 10:20, stale from 11:00). No value: stale. No rule: fetched once, then kept.
 */
export function isStale(lastModified: string | undefined, freshnessRule: string | undefined, now: Date): boolean {
  if (lastModified === undefined) return true;
  if (freshnessRule === undefined) return false;
  const lastTick = cronParser.parseExpression(freshnessRule, { currentDate: now, utc: true }).prev().toDate();
  return lastTick.getTime() > Date.parse(lastModified);
}
