import { eventually } from '@tenet/testing';
import { faultHttp, startOwnStack, type OwnStack } from './support/own-stack.js';

/**
 * ADR 0019: with the budget store (Redis) down, a budgeted agent's turn fails closed with
 * `BUDGET.UNAVAILABLE` — promptly, no LLM call made uncounted — while agents without a budget keep answering; once
 * Redis is back (restarted empty), the counter is rebuilt from the log and budgeted turns answer again. Own
 * nats-server and redis-server on free ports.
 */
describe('budgets while Redis is down (own redis-server): fail closed with BUDGET.UNAVAILABLE', () => {
  let stack: OwnStack | undefined;
  const { call, finalStatus } = faultHttp(() => stack!.host.url, 15_000);

  beforeAll(async () => {
    stack = await startOwnStack('budget-redis');
  }, 120_000);

  afterAll(async () => {
    await stack?.dispose();
  });

  /** A customer message in a new session and the turn's end (ready or error), with how long the turn took. */
  const turn = async (agentId: string): Promise<{ end: Awaited<ReturnType<typeof finalStatus>>; ms: number }> => {
    const session = (await call<{ id: string }>('/sessions', 'POST', { agent_id: agentId })).body;
    const started = Date.now();
    const posted = (
      await call<{ offset: number }>(`/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hello' })
    ).body;
    const end = await finalStatus(session.id, posted.offset, 60_000);
    return { end, ms: Date.now() - started };
  };

  it('refuses budgeted turns with BUDGET.UNAVAILABLE while Redis is down, and answers again once it is back', async () => {
    const budgeted = (
      await call<{ id: string }>('/agents', 'POST', { name: 'Budgeted', budget: { limits: [{ period: 'day', tokens: 1_000_000 }] } })
    ).body.id;
    const unbudgeted = (await call<{ id: string }>('/agents', 'POST', { name: 'Free' })).body.id;
    expect((await turn(budgeted)).end.status).toBe('ready');
    const used = async (): Promise<number | undefined> =>
      (await call<{ budgets?: { used: number }[] }>(`/agents/${budgeted}/budget`)).body.budgets?.[0]?.used;
    const usedBefore = await used();
    expect(usedBefore).toBeGreaterThan(0);

    await stack!.redis.kill();
    const refused = await turn(budgeted);
    expect(refused.end).toMatchObject({ status: 'error', data: { code: 'BUDGET.UNAVAILABLE' } });
    // Bounded: the store's answer is awaited at most 5 s, far from the 120 s turn deadline.
    expect(refused.ms).toBeLessThan(30_000);
    expect((await turn(unbudgeted)).end.status).toBe('ready');

    await stack!.redis.start();
    // Redis restarted empty: the day's counter is rebuilt from the usage the log holds, without a restart of the host.
    await eventually(async () => expect(await used()).toBe(usedBefore), { timeoutMs: 30_000, intervalMs: 250 });
    let back: Awaited<ReturnType<typeof finalStatus>> | undefined;
    for (let attempt = 0; attempt < 10 && back?.status !== 'ready'; attempt++) back = (await turn(budgeted)).end;
    expect(back?.status).toBe('ready');
  }, 240_000);
});
