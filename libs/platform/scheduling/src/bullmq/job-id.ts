/**
 * Caller job ids ↔ BullMQ ids. BullMQ 5 rejects custom job ids that are integers ("Custom Id cannot be
 * integers"), contain ':' (unless split in exactly three parts, a legacy repeatable-job format), or are '0'
 * / start with '0:'. Tenet's ids look like `idle:<sessionId>`, so they are encoded: a constant prefix keeps
 * every id from parsing as an integer, and '%', ':' and '.' (the token separator below) are percent-escaped.
 * Reversible and readable in Redis.
 *
 * The encoded caller id is the job's BullMQ *deduplication id*; each `schedule` call adds a job of its own,
 * `<encoded id>.<token>`, so BullMQ's answer (the id it kept) says atomically whether this call created it.
 */
const PREFIX = 'j_';
const TOKEN_SEPARATOR = '.';

export function toBullJobId(jobId: string): string {
  return PREFIX + jobId.replace(/[%:.]/g, (char) => (char === '%' ? '%25' : char === ':' ? '%3A' : '%2E'));
}

/** The BullMQ job id of one `schedule` call: the deduplication id plus a token unique to the call. */
export function toBullJobInstanceId(jobId: string, token: string): string {
  return `${toBullJobId(jobId)}${TOKEN_SEPARATOR}${token}`;
}

export function fromBullJobId(bullJobId: string): string {
  // A job added to the queue by something other than this adapter keeps its id as it is.
  if (!bullJobId.startsWith(PREFIX)) return bullJobId;
  // '.' is escaped in the encoded part, so the first one (if any) starts the per-call token.
  const separator = bullJobId.indexOf(TOKEN_SEPARATOR);
  const encoded = separator === -1 ? bullJobId.slice(PREFIX.length) : bullJobId.slice(PREFIX.length, separator);
  return encoded.replace(/%25|%3A|%2E/g, (escape) => (escape === '%25' ? '%' : escape === '%3A' ? ':' : '.'));
}
