import type { ChannelKind } from '../channels/channel.dto.js';
import type { ChannelAdapter } from './channel-adapter.port.js';
import { SlackAdapter } from './slack.adapter.js';
import { TelegramAdapter } from './telegram.adapter.js';
import { WebhookAdapter } from './webhook.adapter.js';
import { WidgetAdapter } from './widget.adapter.js';
import { WhatsAppAdapter } from './whatsapp.adapter.js';

/** One adapter per kind; adapters hold no per-conversation state (only SDK clients), so one instance serves all connections. */
export class AdapterRegistry {
  private readonly byKind: Map<string, ChannelAdapter>;

  constructor(adapters: ChannelAdapter[] = AdapterRegistry.standard({ allowPrivateTargets: false })) {
    this.byKind = new Map(adapters.map((a) => [a.kind, a]));
  }

  /** Every kind's adapter; `allowPrivateTargets` lets the webhook deliver to non-public addresses (TENET_CHANNELS_ALLOW_PRIVATE_TARGETS). */
  static standard(options: { allowPrivateTargets: boolean }): ChannelAdapter[] {
    return [new WebhookAdapter(options), new TelegramAdapter(), new SlackAdapter(), new WhatsAppAdapter(), new WidgetAdapter()];
  }

  of(kind: ChannelKind | string): ChannelAdapter {
    const adapter = this.byKind.get(kind);
    if (!adapter) throw new Error(`no adapter for channel kind ${kind}`);
    return adapter;
  }
}

/** Credential every kind may carry: an API key of the connection's workspace for the session gateway (ADR 0025). */
export const TENET_API_KEY_FIELD = 'tenet_api_key';
