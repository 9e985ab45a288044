import { MemoryDomainError } from './errors.js';

/**
 * A customer's semantic memory (docs/data-model.md#semantic-memory) as a decider: facts `subject · predicate · object` are recorded,
 * superseded by a contradicting newer fact, or forgotten — never updated in place or deleted, so "what did we
 * believe at time T" stays answerable. One stream per customer. Time (`now`, epoch ms) and ids come in with
 * the command.
 */

/** Where a fact came from: who said it, in which session/message, or an operator through the API. */
export interface FactSource {
  kind: 'conversation' | 'operator' | 'import';
  sessionId?: string;
  messageId?: string;
}

/**
 * `single`: the predicate has one current value per subject ("lives_in", "preferred_language"), so a new
 * object supersedes the current one. `multiple`: values accumulate ("owns_product").
 */
export type PredicateCardinality = 'single' | 'multiple';

export interface Fact {
  factId: string;
  customerId: string;
  subject: string;
  predicate: string;
  object: string;
  /** 0 … 1: how sure extraction (or the operator) was. */
  confidence: number;
  source: FactSource;
  recordedAt: number;
  supersededAt?: number;
  supersededBy?: string;
}

export type RecordFact = {
  type: 'RecordFact';
  factId: string;
  customerId: string;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  source: FactSource;
  cardinality?: PredicateCardinality;
  now: number;
};
export type ForgetFact = { type: 'ForgetFact'; factId: string; customerId: string; reason?: string; now: number };
export type MemoryCommand = RecordFact | ForgetFact;

export type FactRecorded = { type: 'FactRecorded'; data: Fact };
export type FactSuperseded = { type: 'FactSuperseded'; data: { factId: string; customerId: string; supersededBy: string; at: number } };
/** A tombstone: the fact's content is gone from every projection from here on (and from the past too). */
export type FactForgotten = { type: 'FactForgotten'; data: { factId: string; customerId: string; reason?: string; at: number } };
export type MemoryEvent = FactRecorded | FactSuperseded | FactForgotten;

export interface CustomerMemoryState {
  /** Facts ever recorded and not forgotten, superseded ones included, in recording order. */
  facts: Fact[];
  /** Ids of forgotten facts: a tombstone keeps only the id, so the fact cannot come back by replay or re-use. */
  forgotten: string[];
}

export const initialMemoryState = (): CustomerMemoryState => ({ facts: [], forgotten: [] });

const MAX_TERM_LENGTH = 500;

function requireTerm(field: 'subject' | 'predicate' | 'object', value: string): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (trimmed === '' || trimmed.length > MAX_TERM_LENGTH)
    throw new MemoryDomainError('MEMORY.INVALID_FACT', `${field} must be a non-blank string of at most ${MAX_TERM_LENGTH} characters`);
  return trimmed;
}

/** Subjects and predicates compare without case or surrounding space: "Address" and "address " are one predicate. */
const key = (term: string): string => term.trim().toLowerCase();

function isCurrent(fact: Fact): boolean {
  return fact.supersededAt === undefined;
}

export function decide(command: MemoryCommand, state: CustomerMemoryState): MemoryEvent[] {
  switch (command.type) {
    case 'RecordFact': {
      const subject = requireTerm('subject', command.subject);
      const predicate = requireTerm('predicate', command.predicate);
      const object = requireTerm('object', command.object);
      if (!(typeof command.confidence === 'number' && command.confidence >= 0 && command.confidence <= 1))
        throw new MemoryDomainError('MEMORY.INVALID_FACT', 'confidence must be a number from 0 to 1');
      if (state.forgotten.includes(command.factId) || state.facts.some((f) => f.factId === command.factId))
        throw new MemoryDomainError('MEMORY.INVALID_FACT', `fact_id ${command.factId} is already used`);
      const samePredicate = state.facts.filter(
        (f) => isCurrent(f) && key(f.subject) === key(subject) && key(f.predicate) === key(predicate),
      );
      // Saying again what is already known changes nothing (extraction repeats itself every turn).
      if (samePredicate.some((f) => key(f.object) === key(object))) return [];
      const recorded: FactRecorded = {
        type: 'FactRecorded',
        data: {
          factId: command.factId,
          customerId: command.customerId,
          subject,
          predicate,
          object,
          confidence: command.confidence,
          source: command.source,
          recordedAt: command.now,
        },
      };
      if ((command.cardinality ?? 'single') === 'multiple') return [recorded];
      const superseded: FactSuperseded[] = samePredicate.map((f) => ({
        type: 'FactSuperseded',
        data: { factId: f.factId, customerId: command.customerId, supersededBy: command.factId, at: command.now },
      }));
      return [recorded, ...superseded];
    }
    case 'ForgetFact': {
      if (state.forgotten.includes(command.factId)) return [];
      if (!state.facts.some((f) => f.factId === command.factId))
        throw new MemoryDomainError(
          'MEMORY.FACT_NOT_FOUND',
          `fact ${command.factId} is not in the memory of customer ${command.customerId}`,
        );
      return [
        {
          type: 'FactForgotten',
          data: {
            factId: command.factId,
            customerId: command.customerId,
            ...(command.reason ? { reason: command.reason } : {}),
            at: command.now,
          },
        },
      ];
    }
    default: {
      const exhaustive: never = command;
      throw new MemoryDomainError('MEMORY.INVALID_FACT', `unknown command ${JSON.stringify(exhaustive)}`);
    }
  }
}

export function evolve(state: CustomerMemoryState, event: MemoryEvent): CustomerMemoryState {
  switch (event.type) {
    case 'FactRecorded':
      return { ...state, facts: [...state.facts, event.data] };
    case 'FactSuperseded':
      return {
        ...state,
        facts: state.facts.map((f) =>
          f.factId === event.data.factId ? { ...f, supersededAt: event.data.at, supersededBy: event.data.supersededBy } : f,
        ),
      };
    case 'FactForgotten':
      return { facts: state.facts.filter((f) => f.factId !== event.data.factId), forgotten: [...state.forgotten, event.data.factId] };
    default:
      return state;
  }
}

export const foldMemory = (events: readonly MemoryEvent[]): CustomerMemoryState => events.reduce(evolve, initialMemoryState());

/** Facts believed now: recorded and neither superseded nor forgotten. */
export function factsTrueNow(state: CustomerMemoryState): Fact[] {
  return state.facts.filter(isCurrent);
}

/**
 * Facts believed at time `at` (epoch ms): recorded by then and not yet superseded then. A forgotten fact is
 * absent at every time — forgetting erases the past belief too, not only the present one.
 */
export function factsTrueAt(state: CustomerMemoryState, at: number): Fact[] {
  return state.facts.filter((f) => f.recordedAt <= at && (f.supersededAt === undefined || f.supersededAt > at));
}
