/**
 * Caller job ids ↔ BullMQ job ids. BullMQ 5 rejects custom ids that are integers ("Custom Id cannot be
 * integers"), contain ':' (unless split in exactly three parts, a legacy repeatable-job format), or are '0'
 * / start with '0:'. Tenet's ids look like `idle:<sessionId>`, so they are encoded: a constant prefix keeps
 * every id from parsing as an integer, and '%' and ':' are percent-escaped. Reversible and readable in Redis.
 */
const PREFIX = 'j_';

export function toBullJobId(jobId: string): string {
  return PREFIX + jobId.replace(/[%:]/g, (char) => (char === '%' ? '%25' : '%3A'));
}

export function fromBullJobId(bullJobId: string): string {
  // A job added to the queue by something other than this adapter keeps its id as it is.
  if (!bullJobId.startsWith(PREFIX)) return bullJobId;
  return bullJobId.slice(PREFIX.length).replace(/%25|%3A/g, (escape) => (escape === '%25' ? '%' : ':'));
}
