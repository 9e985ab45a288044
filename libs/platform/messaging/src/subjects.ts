/** NATS subject matching: `*` matches exactly one token, `>` (last) matches one or more tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  // A pattern without wildcards matches only itself (most listeners: one session's wake-up), without splitting.
  if (!pattern.includes('*') && !pattern.includes('>')) return false;
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
}

/** Default redelivery delay: exponential from 250 ms, capped at 30 s. */
export const defaultNakDelay = (deliveryCount: number): number => Math.min(30_000, 250 * 2 ** Math.max(0, deliveryCount - 1));

export const nakDelayFor = (policy: number | ((deliveryCount: number) => number) | undefined, deliveryCount: number): number =>
  typeof policy === 'function' ? policy(deliveryCount) : (policy ?? defaultNakDelay(deliveryCount));

/** Retention limits of a stream; each one left out means "no opinion", not "unlimited". */
export interface StreamLimits {
  /** Retention by age; 0 keeps messages until the other limits. */
  maxAgeMs?: number;
  /** Bytes kept (JetStream only; the in-process bus ignores it); -1 is unlimited. Oldest dropped first. */
  maxBytes?: number;
  /**
   * Messages kept, oldest dropped first; -1 is unlimited on JetStream. The in-process bus keeps 100 000 when
   * unset: the all-in-one host's durable record is the event log, not the bus.
   */
  maxMessages?: number;
}

/**
 * Stream definitions both adapters accept. Setup is idempotent and converges an existing stream only on what
 * the spec states: a limit left out keeps whatever the stream has (an operator's `nats stream edit` survives a
 * restart), and `initial` limits apply only when the stream is created.
 */
export interface StreamSpec extends StreamLimits {
  name: string;
  /** Subjects the stream captures (wildcards allowed). */
  subjects: string[];
  /** Window in which a repeated msgId is dropped. Default 2 minutes (at creation). */
  duplicateWindowMs?: number;
  /** JetStream storage; cannot change once the stream exists. Default `file`. The in-process bus ignores it. */
  storage?: 'file' | 'memory';
  /** Limits a new stream starts with where the spec itself sets none. */
  initial?: StreamLimits;
}
