export { ChannelsModule } from './channels.module.js';
export { ChannelsRepository } from './channels/channels.repository.js';
export { CHANNELS_CONFIG, channelsConfigFrom, type ChannelsConfig } from './channels.config.js';
export { signWebhook, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from './adapters/webhook.adapter.js';
export { TELEGRAM_SECRET_HEADER } from './adapters/telegram.adapter.js';
export { signSlack } from './adapters/slack.adapter.js';
export { signWhatsApp, WHATSAPP_SIGNATURE_HEADER } from './adapters/whatsapp.adapter.js';
export { inboundUrlLines } from './inbound/inbound-urls.js';
