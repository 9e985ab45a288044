import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { gatewayHttp } from './support/gateway-http.js';

interface Event {
  kind: string;
  source: string;
  data: {
    message?: string;
    status?: string;
    data?: { skipped_definitions?: { kind: string; id: string; field: string; rule: string }[]; exception?: string };
  };
}

/**
 * ADR 0024: a stored definition the turn's contracts refuse (planted beneath the API, as an older version
 * or a PATCH gap could have stored it) is skipped, logged once and flagged on `ready` — every agent still answers.
 */
describe('one bad stored definition never fails the turns of every agent (all-in-one, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let store: EventStore;
  let url = '';
  const { created, turn } = gatewayHttp(() => url);

  /** Appends an update to a resource's stream directly, as its repository would: the item's first state, changed by `mutate`. */
  const corrupt = async (
    stream: string,
    type: string,
    mutate: (data: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<void> => {
    const [first] = await store.readStream(stream);
    await store.append(stream, [{ type, data: mutate({ ...(first!.data as Record<string, unknown>) }) }]);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-bad-definitions-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
    store = app.get(EVENT_STORE);
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('skips each bad definition, flags it on ready, logs it once, and both agents keep answering', async () => {
    const warnings: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    try {
      const canned = (await created('/agents', { name: 'Canned', composition_mode: 'canned_fluid' })).id;
      const plain = (await created('/agents', { name: 'Plain' })).id;
      const hours = await created('/guidelines', { condition: 'the customer asks about opening hours', action: 'say we open at nine' });
      // One of each kind that reaches a turn's payload, untagged so it applies to every agent, each then broken.
      const capability = await created('/capabilities', { title: 'Tracking', description: 'Track orders', signals: ['where is my order'] });
      await corrupt(`capability-${capability.id}`, 'CapabilityUpdated', () => ({ signals: null }));
      const term = await created('/terms', { name: 'Parcel', description: 'A package', synonyms: ['box'] });
      await corrupt(`term-${term.id}`, 'TermUpdated', () => ({ synonyms: null }));
      const guideline = await created('/guidelines', { condition: 'the customer greets', action: 'greet back' });
      await corrupt(`guideline-${guideline.id}`, 'GuidelineUpdated', (g) => ({ ...g, required_context: null }));
      const response = await created('/canned_responses', { value: 'We open at nine.' });
      await corrupt(`canned-${response.id}`, 'CannedResponseUpdated', () => ({ value: 42 }));
      const variable = await created('/context-variables', { name: 'tier', description: 'Loyalty tier' });
      await corrupt(`contextvar-${variable.id}`, 'ContextVariableUpdated', (v) => ({ ...v, tags: null }));
      const journey = await created('/journeys', {
        title: 'Returns',
        description: 'Return an item',
        conditions: ['the customer wants to return an item'],
      });
      await corrupt(`journey-${journey.id}`, 'JourneyUpdated', (j) => ({ ...j, steps: null }));
      const relationship = 'rel-bad-kind';
      await store.append(`relationship-${relationship}`, [
        {
          type: 'RelationshipCreated',
          data: {
            id: relationship,
            kind: '',
            source: { type: 'guideline', id: hours.id },
            target: { type: 'guideline', id: hours.id },
            creation_utc: new Date().toISOString(),
          },
        },
      ]);
      const untaggedCapability = await created('/capabilities', { title: 'Gifts', description: 'Gift cards', signals: ['gift'] });
      await corrupt(`capability-${untaggedCapability.id}`, 'CapabilityUpdated', () => ({ tags: 'agent' }));

      for (const agent of [canned, plain]) {
        const { reply, ready, error } = await turn<Event>(agent, 'Hello, when do you open? Where is my parcel?');
        expect(error?.data.data?.exception).toBeUndefined();
        expect(reply?.data.message).toBeTruthy();
        const skipped = ready?.data.data?.skipped_definitions ?? [];
        const kinds = new Set(skipped.map((s) => `${s.kind}:${s.id}`));
        expect(kinds).toEqual(
          new Set([
            `capability:${capability.id}`,
            `capability:${untaggedCapability.id}`,
            `term:${term.id}`,
            `guideline:${guideline.id}`,
            `context_variable:${variable.id}`,
            `journey:${journey.id}`,
            `relationship:${relationship}`,
            ...(agent === canned ? [`canned_response:${response.id}`] : []),
          ]),
        );
        expect(skipped.find((s) => s.id === capability.id)).toMatchObject({ field: 'signals', rule: 'must be array' });
      }
      // Logged once per bad definition, not once per turn.
      const logged = (id: string) => warnings.filter((w) => w.includes(id)).length;
      for (const id of [capability.id, term.id, guideline.id, variable.id, journey.id, untaggedCapability.id, response.id, relationship])
        expect(logged(id)).toBe(1);
    } finally {
      warn.mockRestore();
    }
  });
});
