import { sessionStreamId, type SessionEventData } from '@tenet/contracts';
import { InMemoryEventStore, type EventStore, type ReadStreamOptions, type StoredEvent } from '@tenet/event-store';
import { toEventView } from '@tenet/session-data-access';
import { readTurnTail, SESSION_APPLIED_FIELD } from './turn-history.js';

const SESSION = 's1';

/** Counts the session events each read returns. */
class CountingStore extends InMemoryEventStore {
  read = 0;
  /** Events other than messages returned (statuses: the `ready`s are a session's largest events). */
  others = 0;
  /** `others` of the last readTurnTail in expectSameAsFullRead. */
  othersInTail = 0;
  override async readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    const events = await super.readStream(streamId, options);
    this.read += events.length;
    this.others += events.filter((e) => e.type !== 'message').length;
    return events;
  }
}

async function append(
  store: EventStore,
  kind: string,
  source: string,
  correlationId: string,
  data: Record<string, unknown>,
): Promise<number> {
  const logged: SessionEventData = {
    session_id: SESSION,
    source: source as SessionEventData['source'],
    correlation_id: correlationId,
    data,
  };
  const result = await store.append(sessionStreamId(SESSION), [{ type: kind, data: logged, metadata: { trace_id: correlationId } }]);
  return result.nextExpectedVersion;
}

/** What the turn computed before readTurnTail: every event before the message, filtered afterwards. */
async function reference(
  store: EventStore,
  before: number,
  historyLength: number,
): Promise<{ messages: string[]; previouslyApplied: string[] }> {
  const earlier = (await store.readStream(sessionStreamId(SESSION)))
    .map((e) => toEventView(e))
    .filter((e) => e.offset < before && (e.kind === 'message' || e.kind === 'status'));
  const applied = new Set<string>();
  for (const event of earlier) {
    const data = event.data as { status?: string; data?: { applied_guideline_ids?: unknown } };
    if (data.status !== 'ready' || !Array.isArray(data.data?.applied_guideline_ids)) continue;
    for (const id of data.data.applied_guideline_ids) if (typeof id === 'string') applied.add(id);
  }
  return {
    messages: earlier
      .filter((e) => e.kind === 'message')
      .slice(-historyLength)
      .map((e) => e.id),
    previouslyApplied: [...applied],
  };
}

/** Deterministic pseudo-random applied ids: a few of g0…g39 per turn, often repeating earlier ones. */
const appliedFor = (turn: number): string[] => [
  ...new Set([`g${(turn * 7) % 40}`, ...(turn % 3 === 0 ? [`g${(turn * 13) % 40}`] : []), ...(turn % 5 === 0 ? ['g1'] : [])]),
];

/**
 * One turn as TurnService writes it: customer message, acknowledged, processing, typing, agent message,
 * ready. `withField` = a gateway with the cumulative field (computed through readTurnTail, as the turn does);
 * without it, a session written before the field existed.
 */
async function turn(store: EventStore, n: number, withField: boolean, historyLength = 20): Promise<number> {
  const corr = `corr_${n}`;
  const trigger = await append(store, 'message', 'customer', corr, { message: `question ${n}`, participant: { display_name: 'customer' } });
  for (const status of ['acknowledged', 'processing']) await append(store, 'status', 'ai_agent', corr, { status, data: {} });
  const tail = await readTurnTail(store, SESSION, trigger, historyLength);
  await append(store, 'status', 'ai_agent', corr, { status: 'typing', data: {} });
  await append(store, 'message', 'ai_agent', corr, { message: `answer ${n}`, participant: { display_name: 'agent' } });
  const applied = appliedFor(n);
  await append(store, 'status', 'ai_agent', corr, {
    status: 'ready',
    data: {
      applied_guideline_ids: applied,
      ...(withField ? { [SESSION_APPLIED_FIELD]: [...new Set([...tail.previouslyApplied, ...applied])] } : {}),
    },
  });
  return trigger;
}

async function expectSameAsFullRead(store: CountingStore, before: number, historyLength: number): Promise<number> {
  store.read = 0;
  store.others = 0;
  const tail = await readTurnTail(store, SESSION, before, historyLength);
  const read = store.read;
  store.othersInTail = store.others;
  const expected = await reference(store, before, historyLength);
  expect(tail.messages.map((m) => m.id)).toEqual(expected.messages);
  expect(tail.messages.map((m) => m.offset)).toEqual([...tail.messages.map((m) => m.offset)].sort((a, b) => a - b));
  expect(tail.previouslyApplied).toEqual(expected.previouslyApplied);
  expect(tail.eventsRead).toBe(read);
  return read;
}

describe('readTurnTail', () => {
  it('gives a 300-event session the same last messages and applied ids as a full read, reading a bounded tail', async () => {
    const store = new CountingStore();
    for (let n = 0; n < 50; n++) await turn(store, n, true); // 300 events
    const before = await append(store, 'message', 'customer', 'corr_last', { message: 'one more' });
    expect(before).toBe(300);
    for (const historyLength of [1, 5, 20]) {
      const read = await expectSameAsFullRead(store, before, historyLength);
      expect(read).toBeLessThanOrEqual(80);
      // Anchored on the previous turn's ready within the first window: older statuses are not read at all.
      expect(store.othersInTail).toBeLessThanOrEqual(16);
    }
    // Every earlier turn position too (the tail of a turn is always the events before its own message).
    for (let before = 0; before <= 300; before += 6) await expectSameAsFullRead(store, before, 20);
    const union = (await reference(store, 300, 20)).previouslyApplied;
    expect(union.length).toBeGreaterThan(10); // the union over the whole session, not just the recent turns
  });

  it('falls back to scanning the session when its ready statuses predate the cumulative field', async () => {
    const store = new CountingStore();
    for (let n = 0; n < 50; n++) await turn(store, n, false);
    expect(await expectSameAsFullRead(store, 300, 20)).toBe(300);
    // Upgraded mid-session: the first new turn scans and records the union; the ones after read a tail.
    for (let n = 50; n < 53; n++) await turn(store, n, true);
    const before = await append(store, 'message', 'customer', 'corr_after', { message: 'after the upgrade' });
    expect(await expectSameAsFullRead(store, before, 20)).toBeLessThanOrEqual(80);
  });

  it('adds a ready that landed between the latest ready’s customer message and that ready', async () => {
    const store = new CountingStore();
    for (let n = 0; n < 30; n++) await turn(store, n, true);
    // Turn A's ready lands after turn B's customer message (B then started after A released its lease).
    const a = await append(store, 'message', 'customer', 'corr_a', { message: 'a' });
    const b = await append(store, 'message', 'customer', 'corr_b', { message: 'b' });
    await append(store, 'status', 'ai_agent', 'corr_a', {
      status: 'ready',
      data: {
        applied_guideline_ids: ['g_race'],
        [SESSION_APPLIED_FIELD]: [...(await readTurnTail(store, SESSION, a, 20)).previouslyApplied, 'g_race'],
      },
    });
    const forB = await readTurnTail(store, SESSION, b, 20);
    expect(forB.previouslyApplied).not.toContain('g_race'); // after B's message: not B's business
    await append(store, 'status', 'ai_agent', 'corr_b', {
      status: 'ready',
      data: { applied_guideline_ids: ['g_b'], [SESSION_APPLIED_FIELD]: [...forB.previouslyApplied, 'g_b'] },
    });
    const c = await append(store, 'message', 'customer', 'corr_c', { message: 'c' });
    const forC = await readTurnTail(store, SESSION, c, 20);
    expect(new Set(forC.previouslyApplied)).toEqual(new Set((await reference(store, c, 20)).previouslyApplied));
    expect(forC.previouslyApplied).toEqual(expect.arrayContaining(['g_race', 'g_b']));
  });

  it('answers an empty or short session', async () => {
    const store = new CountingStore();
    expect(await readTurnTail(store, SESSION, 0, 20)).toEqual({ messages: [], previouslyApplied: [], eventsRead: 0 });
    await turn(store, 0, true);
    const before = await append(store, 'message', 'customer', 'corr_1', { message: 'again' });
    await expectSameAsFullRead(store, before, 20);
  });
});
