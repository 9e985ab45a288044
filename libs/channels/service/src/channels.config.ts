import { loadConfig, type TenetConfig } from '@tenet/config';
import { TENET_CONFIG } from '@tenet/platform-runtime';
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

/** The channel gateway's settings from an environment (rules and defaults: `@tenet/config`). */
export function channelsConfigFrom(env: NodeJS.ProcessEnv): ChannelsConfig {
  return channelsConfigOf(loadConfig('channel-gateway', env));
}

/** The channel gateway's settings from the process's validated configuration. */
export function channelsConfigOf(config: TenetConfig): ChannelsConfig {
  return {
    gatewayUrl: config.get('TENET_CHANNELS_GATEWAY_URL'),
    gatewayApiKey: config.get('TENET_CHANNELS_API_KEY') || config.get('TENET_ADMIN_KEY'),
    publicUrl: config.get('TENET_PUBLIC_URL'),
    secrets: secretBoxFromEnv({
      TENET_SECRETS_KEY: config.get('TENET_SECRETS_KEY'),
      TENET_SECRETS_KEY_PREVIOUS: config.get('TENET_SECRETS_KEY_PREVIOUS'),
    }),
    deliveryAttempts: config.get('TENET_CHANNELS_DELIVERY_ATTEMPTS'),
    maxRetryAfterMs: config.get('TENET_CHANNELS_MAX_RETRY_AFTER_MS'),
    allowPrivateTargets: config.get('TENET_CHANNELS_ALLOW_PRIVATE_TARGETS') === 'on',
  };
}

export const channelsConfigProvider = {
  provide: CHANNELS_CONFIG,
  useFactory: (config: TenetConfig) => channelsConfigOf(config),
  inject: [TENET_CONFIG],
};
