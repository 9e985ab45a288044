import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { allContracts, sessionStreamId, toSessionIntegrationEvent } from '@tenet/contracts';
import { EventLogRelay, SqliteEventStore, withPublishing } from '@tenet/event-store';
import { NatsMessageBus } from '@tenet/messaging';
import { deleteStreams, describeWithService, eventually, natsUrl, probeNats } from '@tenet/testing';
import { loadPlatformConfig } from './platform-config.js';
import { openPlatform, tenetStreamsFor, type PlatformAdapters } from './platform-adapters.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false }));
const validators = new Map(allContracts.map((c) => [c.type, ajv.compile(c.schema)]));

const sessionEvent = (sessionId: string, kind: string, data: Record<string, unknown>) => ({
  type: kind,
  data: { session_id: sessionId, source: kind === 'message' ? 'customer' : 'ai_agent', correlation_id: `turn-${sessionId}`, data },
});

describeWithService(await probeNats(), 'event log → JetStream (real NATS)', () => {
  let dir: string;
  let nc: NatsConnection;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-relay-'));
    nc = await connect({ servers: natsUrl() });
  });

  afterEach(async () => {
    await nc.drain();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes each appended session event once, on its versioned subject, schema-valid, with the event id as message id', async () => {
    // Its own namespace (and so its own streams, deleted afterwards): the unnamespaced TENET_V1 is nobody's to keep.
    const namespace = `relay-${randomUUID().slice(0, 8)}`;
    const platform: PlatformAdapters = await openPlatform({
      ...loadPlatformConfig({ TENET_MODE: 'distributed', NATS_URL: natsUrl(), TENET_DATA_DIR: dir, TENET_NAMESPACE: namespace }),
      serviceName: 'relay-test',
    });
    const streams = tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name);
    const sessionId = `s${randomUUID().replaceAll('-', '')}`;
    const received: Msg[] = [];
    const sub = nc.subscribe(`${namespace}.tenet.v1.session.${sessionId}.>`, { callback: (_err, msg) => void received.push(msg) });
    await nc.flush();
    try {
      await platform.relay.start();
      const appended = await platform.eventStore.append(sessionStreamId(sessionId), [
        sessionEvent(sessionId, 'message', { message: 'I want a refund', participant: { display_name: 'Ann' } }),
        sessionEvent(sessionId, 'status', { status: 'ready', data: {} }),
        sessionEvent(sessionId, 'custom', { page: '/checkout' }),
      ]);
      await eventually(() => expect(received).toHaveLength(3));
      expect(received.map((m) => m.subject)).toEqual([
        `${namespace}.tenet.v1.session.${sessionId}.message_created`,
        `${namespace}.tenet.v1.session.${sessionId}.status_changed`,
        `${namespace}.tenet.v1.session.${sessionId}.custom_event_recorded`,
      ]);
      for (const [index, msg] of received.entries()) {
        const payload = msg.json<{ type: string; id: string; offset: number }>();
        const validate = validators.get(payload.type)!;
        expect(validate(payload)).toBe(true);
        expect(payload.id).toBe(appended.events[index]!.id);
        expect(payload.offset).toBe(index);
        expect(msg.headers?.get('Nats-Msg-Id')).toBe(appended.events[index]!.id);
      }
      // A relay that lost its checkpoint republishes everything; JetStream's duplicate window stores none of it twice.
      await platform.relay.stop();
      await platform.eventStore.saveCheckpoint('tenet.v1.relay', 0);
      const replay = new EventLogRelay({
        store: platform.eventStore,
        publisher: platform.bus,
        route: toSessionIntegrationEvent,
        checkpointName: 'tenet.v1.relay',
        pollIntervalMs: 0,
      });
      await replay.start();
      await eventually(() => expect(replay.publishedUpTo).toBe(appended.lastPosition));
      await replay.stop();
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(streams[0]!, { subjects_filter: `${namespace}.tenet.v1.session.${sessionId}.>` });
      expect(Object.values(info.state.subjects ?? {})).toEqual([1, 1, 1]);
    } finally {
      sub.unsubscribe();
      await platform.close();
      await deleteStreams(natsUrl(), streams);
    }
  });

  it('loses nothing while JetStream refuses the publishes, and publishes in order once it accepts them', async () => {
    const root = `relaytest.${randomUUID()}`;
    const streamName = `RELAYTEST_${randomUUID().replaceAll('-', '')}`;
    const store = SqliteEventStore.open({ dataDir: dir });
    const bus = await NatsMessageBus.connect({ servers: natsUrl(), name: 'relay-failure-test' });
    const failures: unknown[] = [];
    const relay = new EventLogRelay({
      store,
      publisher: bus,
      route: (event) => ({ subject: `${root}.${event.streamId}`, payload: { id: event.id, offset: event.offset } }),
      retry: { initialDelayMs: 20, maxDelayMs: 200 },
      onError: (error) => failures.push(error),
    });
    const log = withPublishing(store, relay);
    const jsm = await jetstreamManager(nc);
    try {
      await relay.start();
      for (let i = 0; i < 20; i++) await log.append('orders-1', [{ type: 'OrderNoted', data: { i } }]);
      // No stream captures these subjects yet: every publish is refused and retried.
      await eventually(() => expect(failures.length).toBeGreaterThanOrEqual(2));
      expect(relay.publishedUpTo).toBe(0);

      await jsm.streams.add({ name: streamName, subjects: [`${root}.>`] });
      await eventually(() => expect(relay.publishedUpTo).toBe(20));
      const info = await jsm.streams.info(streamName);
      expect(info.state.messages).toBe(20);
      const offsets: number[] = [];
      for (let seq = 1; seq <= 20; seq++)
        offsets.push((await jsm.streams.getMessage(streamName, { seq }))!.json<{ offset: number }>().offset);
      expect(offsets).toEqual([...Array(20).keys()]);
    } finally {
      await log.close();
      await bus.close();
      await jsm.streams.delete(streamName).catch(() => undefined);
    }
  });
});
