import { ConfigError, readSettings, type Settings } from '@tenet/config';

/** How the gateway authenticates, read once at start-up (ADR 0018). */
export interface AuthConfig {
  /** false: every route is open (embedded on loopback by default, or TENET_AUTH=off). */
  enforced: boolean;
  /** TENET_ADMIN_KEY: an operator-chosen admin key of the `default` workspace, to create the first keys with. */
  bootstrapKey?: string;
  /** Why it is open, for the start-up warning. */
  reason: string;
}

export class AuthConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * TENET_AUTH=on|off. Unset: enforced in distributed mode, and in embedded mode when the server listens beyond
 * loopback (TENET_HOST); open only for `npm start` on 127.0.0.1. Distributed mode (or a non-loopback embedded
 * server) runs open only with TENET_AUTH=off, said in so many words.
 */
export function authConfigFrom(env: Record<string, string | undefined>, mode: 'embedded' | 'distributed', defaultHost: string): AuthConfig {
  let settings: Pick<Settings, 'TENET_AUTH' | 'TENET_ADMIN_KEY' | 'TENET_HOST'>;
  try {
    settings = readSettings(env, ['TENET_AUTH', 'TENET_ADMIN_KEY', 'TENET_HOST']);
  } catch (error) {
    throw error instanceof ConfigError ? new AuthConfigError(error.problems.join('; ')) : error;
  }
  const { TENET_AUTH: setting, TENET_ADMIN_KEY: bootstrapKey } = settings;
  const host = settings.TENET_HOST ?? defaultHost;
  const withKey = bootstrapKey !== undefined ? { bootstrapKey } : {};
  if (setting === 'off') return { enforced: false, reason: 'TENET_AUTH=off', ...withKey };
  if (setting === 'on' || mode === 'distributed' || !LOOPBACK.has(host))
    return { enforced: true, reason: setting === 'on' ? 'TENET_AUTH=on' : `${mode} mode on ${host}`, ...withKey };
  return { enforced: false, reason: `embedded mode on loopback (${host})`, ...withKey };
}
