import { secretBoxFromEnv, type SecretBox } from '@tenet/secrets';

export const CHANNELS_CONFIG = Symbol.for('tenet.channels.config');

/** The channel gateway's settings, read once from the environment (ADR 0025). */
export interface ChannelsConfig {
  /** The session gateway the channel gateway is a client of (Parlant routes); unset = this process (all-in-one). */
  gatewayUrl: string | undefined;
  /** Key for those calls when the gateway requires keys (an agent-runtime key); a connection may carry its own. */
  gatewayApiKey: string | undefined;
  /** Base of the inbound URLs given to platforms (what the platform can reach, e.g. https://tenet.example.com); unset = the request's own host. */
  publicUrl: string | undefined;
  /** Seals platform credentials at rest; undefined = TENET_SECRETS_KEY unset, and connections are refused. */
  secrets: SecretBox | undefined;
  /** Deliveries of one agent message before it is given up on (a 429 honours the platform's retry-after). */
  deliveryAttempts: number;
  /** Longest wait for a platform's retry-after before the attempt counts as failed (ms). */
  maxRetryAfterMs: number;
  /**
   * The webhook channel may deliver to loopback, private, link-local and metadata addresses (development and tests:
   * a receiver on this machine). Off by default: such an `outbound_url` is refused at registration and at delivery.
   */
  allowPrivateTargets: boolean;
}

const onOff = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'on' && raw !== 'off') throw new Error(`${name} must be "on" or "off" (got "${raw}")`);
  return raw === 'on';
};

const positiveInt = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return value;
};

export function channelsConfigFrom(env: NodeJS.ProcessEnv): ChannelsConfig {
  return {
    gatewayUrl: env['TENET_CHANNELS_GATEWAY_URL']?.replace(/\/+$/, '') || undefined,
    gatewayApiKey: env['TENET_CHANNELS_API_KEY'] || env['TENET_ADMIN_KEY'] || undefined,
    publicUrl: env['TENET_PUBLIC_URL']?.replace(/\/+$/, '') || undefined,
    secrets: secretBoxFromEnv(env),
    deliveryAttempts: positiveInt(env, 'TENET_CHANNELS_DELIVERY_ATTEMPTS', 6),
    maxRetryAfterMs: positiveInt(env, 'TENET_CHANNELS_MAX_RETRY_AFTER_MS', 60_000),
    allowPrivateTargets: onOff(env, 'TENET_CHANNELS_ALLOW_PRIVATE_TARGETS', false),
  };
}

export const channelsConfigProvider = { provide: CHANNELS_CONFIG, useFactory: () => channelsConfigFrom(process.env) };
