import { deciderSpec } from '@tenet/testing';
import {
  decide,
  evolve,
  factsTrueAt,
  factsTrueNow,
  foldMemory,
  initialMemoryState,
  type CustomerMemoryState,
  type FactRecorded,
  type MemoryCommand,
  type MemoryEvent,
  type RecordFact,
} from './index.js';

const spec = deciderSpec<MemoryCommand, MemoryEvent, CustomerMemoryState>({ decide, evolve, initialState: initialMemoryState });
const t0 = 1_800_000_000_000;
const source = { kind: 'operator' as const };
const record = (factId: string, object: string, now: number, extra: Partial<RecordFact> = {}): RecordFact => ({
  type: 'RecordFact',
  factId,
  customerId: 'c1',
  subject: 'customer',
  predicate: 'lives_in',
  object,
  confidence: 0.9,
  source,
  now,
  ...extra,
});
const recorded = (factId: string, object: string, at: number, predicate = 'lives_in'): FactRecorded => ({
  type: 'FactRecorded',
  data: { factId, customerId: 'c1', subject: 'customer', predicate, object, confidence: 0.9, source, recordedAt: at },
});

describe('customer memory (semantic facts: record, supersede, forget)', () => {
  it('records a new fact', () => {
    spec
      .given([])
      .when(record('f1', 'Paris', t0))
      .then([recorded('f1', 'Paris', t0)]);
  });

  it('supersedes the current value of a single-valued predicate, keeping the old fact', () => {
    spec
      .given([recorded('f1', 'Paris', t0)])
      .when(record('f2', 'Lyon', t0 + 10))
      .then([
        recorded('f2', 'Lyon', t0 + 10),
        { type: 'FactSuperseded', data: { factId: 'f1', customerId: 'c1', supersededBy: 'f2', at: t0 + 10 } },
      ]);
  });

  it('matches subject and predicate without case or surrounding space', () => {
    const events = decide(
      record('f2', 'Lyon', t0 + 10, { subject: ' Customer', predicate: 'LIVES_IN ' }),
      foldMemory([recorded('f1', 'Paris', t0)]),
    );
    expect(events.map((e) => e.type)).toEqual(['FactRecorded', 'FactSuperseded']);
  });

  it('accumulates values of a multi-valued predicate', () => {
    spec
      .given([recorded('f1', 'router', t0, 'owns')])
      .when(record('f2', 'modem', t0 + 10, { predicate: 'owns', cardinality: 'multiple' }))
      .then([recorded('f2', 'modem', t0 + 10, 'owns')]);
  });

  it('ignores a fact already believed', () => {
    spec
      .given([recorded('f1', 'Paris', t0)])
      .when(record('f2', 'paris', t0 + 10))
      .thenNothingHappens();
  });

  it('does not let a superseded value come back silently: re-stating it supersedes the newer one', () => {
    const past: MemoryEvent[] = [
      recorded('f1', 'Paris', t0),
      ...decide(record('f2', 'Lyon', t0 + 10), foldMemory([recorded('f1', 'Paris', t0)])),
    ];
    expect(decide(record('f3', 'Paris', t0 + 20), foldMemory(past)).map((e) => [e.type, e.data.factId])).toEqual([
      ['FactRecorded', 'f3'],
      ['FactSuperseded', 'f2'],
    ]);
  });

  it.each([
    [{ subject: ' ' }, /subject must be a non-blank string/],
    [{ predicate: '' }, /predicate must be a non-blank string/],
    [{ object: 'x'.repeat(501) }, /object must be a non-blank string of at most 500/],
    [{ confidence: 1.5 }, /confidence must be a number from 0 to 1/],
    [{ confidence: Number.NaN }, /confidence/],
  ] as const)('rejects %p naming the field', (override, message) => {
    spec
      .given([])
      .when(record('f1', 'Paris', t0, override))
      .thenThrows('MEMORY.INVALID_FACT', message);
  });

  it('refuses to reuse a fact id, even a forgotten one', () => {
    const forgotten: MemoryEvent = { type: 'FactForgotten', data: { factId: 'f1', customerId: 'c1', at: t0 + 5 } };
    spec
      .given([recorded('f1', 'Paris', t0)])
      .when(record('f1', 'Lyon', t0 + 1))
      .thenThrows('MEMORY.INVALID_FACT', /already used/);
    spec
      .given([recorded('f1', 'Paris', t0), forgotten])
      .when(record('f1', 'Lyon', t0 + 10))
      .thenThrows('MEMORY.INVALID_FACT', /already used/);
  });

  describe('forgetting', () => {
    it('tombstones a fact as an event', () => {
      spec
        .given([recorded('f1', 'Paris', t0)])
        .when({ type: 'ForgetFact', factId: 'f1', customerId: 'c1', reason: 'customer request', now: t0 + 5 })
        .then([{ type: 'FactForgotten', data: { factId: 'f1', customerId: 'c1', reason: 'customer request', at: t0 + 5 } }]);
    });

    it('is idempotent and refuses an unknown fact', () => {
      const forgotten: MemoryEvent = { type: 'FactForgotten', data: { factId: 'f1', customerId: 'c1', at: t0 + 5 } };
      spec
        .given([recorded('f1', 'Paris', t0), forgotten])
        .when({ type: 'ForgetFact', factId: 'f1', customerId: 'c1', now: t0 + 6 })
        .thenNothingHappens();
      spec.given([]).when({ type: 'ForgetFact', factId: 'nope', customerId: 'c1', now: t0 }).thenThrows('MEMORY.FACT_NOT_FOUND', /nope/);
    });

    it('erases the fact from the present and the past', () => {
      const state = foldMemory([
        recorded('f1', 'Paris', t0),
        { type: 'FactForgotten', data: { factId: 'f1', customerId: 'c1', at: t0 + 5 } },
      ]);
      expect(factsTrueNow(state)).toEqual([]);
      expect(factsTrueAt(state, t0 + 1)).toEqual([]);
      expect(state.forgotten).toEqual(['f1']);
    });
  });

  describe('queries', () => {
    const first = [recorded('f1', 'Paris', t0)];
    const history = [...first, ...decide(record('f2', 'Lyon', t0 + 100), foldMemory(first))];
    const state = foldMemory(history);

    it('answers what is true now', () => {
      expect(factsTrueNow(state).map((f) => f.object)).toEqual(['Lyon']);
      expect(state.facts.find((f) => f.factId === 'f1')).toMatchObject({ supersededAt: t0 + 100, supersededBy: 'f2' });
    });

    it('answers what was true at a time', () => {
      expect(factsTrueAt(state, t0 - 1)).toEqual([]);
      expect(factsTrueAt(state, t0).map((f) => f.object)).toEqual(['Paris']);
      expect(factsTrueAt(state, t0 + 99).map((f) => f.object)).toEqual(['Paris']);
      expect(factsTrueAt(state, t0 + 100).map((f) => f.object)).toEqual(['Lyon']);
    });
  });
});
