/** NATS subject matching: `*` matches exactly one token, `>` (last) matches one or more tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
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

/** Stream definitions both adapters accept. */
export interface StreamSpec {
  name: string;
  /** Subjects the stream captures (wildcards allowed). */
  subjects: string[];
  /** Window in which a repeated msgId is dropped. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** Retention by age; 0 keeps messages until limits. Default 0. */
  maxAgeMs?: number;
  /** JetStream storage; cannot change once the stream exists. Default `file`. The in-process bus ignores it. */
  storage?: 'file' | 'memory';
  /**
   * In-process bus only: messages kept in memory, oldest dropped first (default 100 000). The all-in-one
   * host's durable record is the event log, not the bus; JetStream streams are limited by their own config.
   */
  maxMessages?: number;
}
