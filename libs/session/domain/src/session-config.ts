import type { DomainRuleViolation } from './errors.js';

/** A session's config (docs/data-model.md#sessions). Durations are whole seconds. */
export interface SessionConfig {
  ttl_secs: number;
  idle_timeout_secs: number;
  max_messages: number;
  /**
   * Context extraction for this session: true or false override the agent's `config.auto_extract_context`;
   * null (the default) lets the agent decide. (Before ADR 0030 only false was accepted, and it meant what null
   * means now: the gateway reads those stored sessions as null.)
   */
  auto_extract: boolean | null;
  enable_journeys: boolean;
}

export const defaultSessionConfig: SessionConfig = {
  ttl_secs: 3600,
  idle_timeout_secs: 300,
  max_messages: 100,
  auto_extract: null,
  enable_journeys: true,
};

interface IntegerRange {
  field: keyof SessionConfig;
  min: number;
  max: number;
}

const ranges: IntegerRange[] = [
  { field: 'ttl_secs', min: 60, max: 86_400 },
  { field: 'idle_timeout_secs', min: 30, max: 3_600 },
  { field: 'max_messages', min: 10, max: 1_000 },
];

/**
 * Applies the config's range rules and `expires_at` in the future, and returns every violation (not just the first), so an API can
 * report them all at once. Times are epoch milliseconds supplied by the caller: `expiresAt` must be after `now`.
 */
export function sessionConfigViolations(config: SessionConfig, expiresAt: number | undefined, now: number): DomainRuleViolation[] {
  const violations: DomainRuleViolation[] = [];
  for (const { field, min, max } of ranges) {
    const value = config[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      violations.push({ field: `config.${field}`, rule: `must be an integer from ${min} to ${max}` });
    }
  }
  if (typeof config.enable_journeys !== 'boolean') violations.push({ field: 'config.enable_journeys', rule: 'must be a boolean' });
  if (config.auto_extract !== null && typeof config.auto_extract !== 'boolean')
    violations.push({ field: 'config.auto_extract', rule: 'must be a boolean or null' });
  if (expiresAt !== undefined && !(expiresAt > now)) violations.push({ field: 'expires_at', rule: 'must be in the future' });
  return violations;
}

/** Whether a turn of the session extracts context: the session's own switch, else the agent's. */
export function extractsContext(session: Pick<SessionConfig, 'auto_extract'>, agent: { auto_extract_context?: boolean }): boolean {
  return session.auto_extract ?? agent.auto_extract_context === true;
}
