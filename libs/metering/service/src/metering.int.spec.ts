import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { METERING_USAGE_SUBJECT, type LlmUsageRecordedV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { TenetTransport, type MessageBus } from '@tenet/messaging';
import type { UsageSummary } from '@tenet/metering-domain';
import { EVENT_STORE, loadPlatformConfig, MESSAGE_BUS, PlatformModule } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { MeteringModule } from './metering.module.js';
import { tokenStreamId } from './token-records.js';

const usageEvent = (agentId: string, at: string, input: number, output: number, id = randomUUID()): LlmUsageRecordedV1 => ({
  id,
  type: 'metering.llm_usage_recorded',
  version: 1,
  stream: `usage-${agentId}`,
  offset: 0,
  position: 1,
  occurred_at: at,
  data: {
    agent_id: agentId,
    session_id: 's1',
    purpose: 'compose_reply',
    provider: 'openai',
    model: 'gpt-4o-mini',
    input_tokens: input,
    output_tokens: output,
    cost_estimate_usd: (input * 0.15 + output * 0.6) / 1e6,
    latency_ms: 12,
  },
});

describe('metering service (embedded adapters)', () => {
  let dir: string;
  let app: INestApplication;
  let bus: MessageBus;
  let store: EventStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-metering-'));
    @Module({ imports: [PlatformModule.forRoot(loadPlatformConfig({ TENET_DATA_DIR: dir }, 'metering-test')), MeteringModule] })
    class Host {}
    app = await NestFactory.create(Host, { logger: false });
    bus = app.get(MESSAGE_BUS);
    store = app.get(EVENT_STORE);
    app.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName: 'metering' }) });
    await app.startAllMicroservices();
    await app.init();
  });

  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores one token record per usage event, counts a redelivered event once, and sums a time range', async () => {
    const first = usageEvent('agent-1', '2026-11-22T10:00:00.000Z', 100, 20);
    const second = usageEvent('agent-1', '2026-11-22T11:00:00.000Z', 50, 10);
    for (const event of [first, second, first]) await bus.publish('tenet.v1.metering.agent-1.llm_usage_recorded', event); // `first` twice: at-least-once
    await bus.publish('tenet.v1.metering.agent-2.llm_usage_recorded', usageEvent('agent-2', '2026-11-22T10:30:00.000Z', 7, 7));

    await eventually(async () => expect(await store.streamVersion(tokenStreamId('agent-1'))).toBe(1));
    const all = await bus.request<UsageSummary>(METERING_USAGE_SUBJECT, { agent_id: 'agent-1' });
    expect(all).toMatchObject({ calls: 2, input_tokens: 150, output_tokens: 30 });
    expect(all.cost_estimate_usd).toBeCloseTo((150 * 0.15 + 30 * 0.6) / 1e6, 12);
    const morning = await bus.request<UsageSummary>(METERING_USAGE_SUBJECT, {
      agent_id: 'agent-1',
      from: '2026-11-22T09:00:00.000Z',
      to: '2026-11-22T11:00:00.000Z',
    });
    expect(morning).toMatchObject({ calls: 1, input_tokens: 100 });
  });

  it('terminates a usage event that breaks the contract instead of retrying it, and keeps consuming', async () => {
    await bus.publish('tenet.v1.metering.agent-3.llm_usage_recorded', {
      ...usageEvent('agent-3', '2026-11-22T10:00:00.000Z', 1, 1),
      data: { agent_id: 'agent-3' },
    });
    await bus.publish('tenet.v1.metering.agent-3.llm_usage_recorded', usageEvent('agent-3', '2026-11-22T10:00:01.000Z', 5, 6));
    await eventually(async () =>
      expect(await bus.request<UsageSummary>(METERING_USAGE_SUBJECT, { agent_id: 'agent-3' })).toMatchObject({ calls: 1, input_tokens: 5 }),
    );
  });

  it('refuses a summary request with a malformed range', async () => {
    await expect(bus.request(METERING_USAGE_SUBJECT, { agent_id: 'agent-1', from: 'yesterday' })).rejects.toMatchObject({
      remoteCode: 'CONTRACT.INVALID',
    });
  });
});
