import { faultHttp, startOwnStack, type OwnStack } from './support/own-stack.js';

/** Longer than the ~10.5 s after which turns used to fail (`RequestError: connection disconnected`), well within the 120 s deadline. */
const OUTAGE_MS = 16_000;

/**
 * docs/reliability.md promises that a turn's matcher requests are retried with backoff until the
 * turn deadline. A turn whose customer message arrives while NATS is down (own nats-server, killed with SIGKILL)
 * must answer `ready` once NATS is back within the deadline — not fail when the client reports the disconnect.
 */
describe('a turn across a NATS outage shorter than its deadline (own nats-server, killed and restarted)', () => {
  let stack: OwnStack | undefined;
  const { call, finalStatus } = faultHttp(() => stack!.host.url);

  beforeAll(async () => {
    stack = await startOwnStack('outage-turn');
  }, 120_000);

  afterAll(async () => {
    await stack?.dispose();
  });

  it('a message taken during the outage is answered once NATS is back, within the turn deadline', async () => {
    const agent = (await call<{ id: string }>('/agents', 'POST', { name: 'Support' })).body;
    await call('/guidelines', 'POST', {
      condition: 'The customer asks about refunds',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent.id}`],
    });
    const session = (await call<{ id: string }>('/sessions', 'POST', { agent_id: agent.id })).body;

    await stack!.nats.kill();
    const during = await call<{ offset: number }>(`/sessions/${session.id}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'I want a refund',
    });
    expect(during.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await stack!.nats.start();

    expect(await finalStatus(session.id, during.body.offset, 150_000)).toMatchObject({ status: 'ready' });
  }, 240_000);
});
