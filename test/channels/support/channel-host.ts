import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { generateSecretsKey } from '@tenet/secrets';
import { jsonClient } from './http.js';

export interface ChannelHost {
  app: INestApplication;
  url: string;
  call: ReturnType<typeof jsonClient>;
  /** An agent that answers anything (one guideline), by id. */
  agent(name: string): Promise<string>;
  /** Every customer message in the agent's sessions. */
  customerMessages(agentId: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The all-in-one host the channel tests run against (embedded, offline LLM), with TENET_SECRETS_KEY set for the
 * channel credentials, the channel gateway talking to this very process and delivering to local receivers
 * (TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on); `close` restores the environment.
 */
export async function startChannelHost(prefix: string): Promise<ChannelHost> {
  const saved = { ...process.env };
  process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
  delete process.env['TENET_CHANNELS_GATEWAY_URL'];
  // The platform stand-ins and webhook receivers listen on 127.0.0.1: allowed only with this setting.
  process.env['TENET_CHANNELS_ALLOW_PRIVATE_TARGETS'] = 'on';
  const dir = mkdtempSync(join(tmpdir(), `tenet-${prefix}-`));
  const { app, url } = await startAllInOne({
    TENET_MODE: 'embedded',
    TENET_DATA_DIR: dir,
    TENET_DEMO: 'off',
    TENET_LLM_PROVIDER: 'offline',
  });
  const call = jsonClient(() => url);
  return {
    app,
    url,
    call,
    agent: async (name) => {
      const id = (await call<{ id: string }>('POST', '/agents', { name })).body.id;
      await call('POST', '/guidelines', {
        condition: 'the customer says anything',
        action: 'greet them and offer help',
        tags: [`agent:${id}`],
      });
      return id;
    },
    customerMessages: async (agentId) => {
      const sessions = (await call<Array<{ id: string }>>('GET', `/sessions?agent_id=${agentId}`)).body;
      const events = await Promise.all(
        sessions.map(
          async (s) =>
            (await call<Array<{ source: string; data: { message?: string } }>>('GET', `/sessions/${s.id}/events?kinds=message`)).body,
        ),
      );
      return events
        .flat()
        .filter((e) => e.source === 'customer')
        .map((e) => e.data.message ?? '');
    },
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
      process.env = saved;
    },
  };
}
