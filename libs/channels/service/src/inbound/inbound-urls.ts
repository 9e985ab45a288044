import type { INestApplicationContext } from '@nestjs/common';
import { CHANNELS_CONFIG, type ChannelsConfig } from '../channels.config.js';
import { ChannelsRepository } from '../channels/channels.repository.js';

/** One line per configured channel with its inbound URL (or the widget's script), for the start-up log. */
export async function inboundUrlLines(app: INestApplicationContext, localBase: string): Promise<string[]> {
  const channels = await app.get(ChannelsRepository, { strict: false }).list();
  const base = app.get<ChannelsConfig>(CHANNELS_CONFIG, { strict: false }).publicUrl ?? localBase;
  return channels.map(
    (c) =>
      `channel ${c.id} "${c.name}" (${c.kind}, workspace ${c.workspace_id}): ${c.kind === 'widget' ? `<script src="${base}/channels/${c.id}/widget.js" async></script>` : `${base}/channels/${c.id}/inbound`}`,
  );
}
