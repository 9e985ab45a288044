import { JourneyDefinitionV1, rpcValidator, toIntegrationEvent } from '@tenet/contracts';
import { decide, foldJourney, type JourneyEvent } from '@tenet/journeys-domain';
import { journeyDefinition } from './journey-catalog.js';
import type { JourneyRecord } from './journey.dto.js';
import { journeyTransitionRecords, recordedJourneys } from './journey-records.js';

const journey = {
  id: 'onboarding',
  title: 'Onboarding',
  description: 'Open an account',
  steps: [
    { id: 'welcome', name: 'Welcome', kind: 'chat' as const, instruction: 'Greet', required_context: [], guidelines: [] },
    { id: 'done', name: 'Done', kind: 'final' as const, required_context: [], guidelines: [] },
  ],
  transitions: [{ from: 'welcome', to: 'done', condition: 'the customer is ready', priority: 0 }],
  initial_step: 'welcome',
  timeouts: { abandon_after_secs: 600, expire_after_secs: 3600 },
};

describe('journey records in the session stream', () => {
  it('round-trips the engine’s events through journey_transition records, and the relay publishes them', () => {
    const activated = decide({ type: 'Activate', journey, sessionId: 's1', now: 1 }, foldJourney([]));
    const moved = decide({ type: 'Advance', journey, evaluated: { 'the customer is ready': true }, now: 2 }, foldJourney(activated));
    const events = [...activated, ...moved].map((event) => ({
      journey_id: 'onboarding',
      event: { type: event.type, data: event.data as Record<string, unknown> },
    }));
    const records = journeyTransitionRecords({ events }, 's1', 'turn-1');
    expect(records.map((r) => r.type)).toEqual(['journey_transition', 'journey_transition', 'journey_transition']);

    const stream = [{ type: 'message', data: {} }, ...records];
    const recorded = recordedJourneys(stream);
    expect(foldJourney(recorded['onboarding'] as JourneyEvent[])).toMatchObject({ status: 'Completed', currentStep: 'done' });

    const published = toIntegrationEvent({
      id: 'e1',
      streamId: 'session-s1',
      offset: 3,
      position: 9,
      type: records[1]!.type,
      data: records[1]!.data,
      recordedAt: '2026-11-23T00:00:00.000Z',
    });
    expect(published).toMatchObject({
      subject: 'tenet.v1.journey.s1.transitioned',
      payload: { data: { journey_id: 'onboarding', from: 'welcome', to: 'done', correlation_id: 'turn-1' } },
    });
  });
});

describe('stored journeys on the wire', () => {
  it('a stored journey, as a definition, satisfies the engine request contract (Parlant fields stay behind)', () => {
    const record: JourneyRecord = {
      ...journey,
      conditions: ['g1'],
      tags: [],
      labels: ['vip'],
      priority: 2,
      creation_utc: '2026-11-23T00:00:00.000Z',
      modified_utc: '2026-11-23T00:00:00.000Z',
    };
    expect(rpcValidator(JourneyDefinitionV1)(journeyDefinition(record))).toEqual(journey);
  });
});
