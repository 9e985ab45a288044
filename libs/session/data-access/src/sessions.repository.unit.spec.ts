import { foldSessionRecord, SESSION_CONFIG_REVISION } from './sessions.repository.js';

describe('a session record: config.auto_extract (true, false or null)', () => {
  const opened = (config: Record<string, unknown>, revision?: number) => ({
    type: 'SessionOpened',
    offset: 0,
    data: {
      id: 's1',
      agent_id: 'a1',
      customer_id: 'guest',
      creation_utc: '2026-11-01T00:00:00.000Z',
      mode: 'auto',
      consumption_offsets: { client: 0 },
      metadata: {},
      labels: [],
      config: { ttl_secs: 3600, idle_timeout_secs: 300, max_messages: 100, enable_journeys: true, ...config },
      ...(revision !== undefined ? { config_revision: revision } : {}),
    },
  });

  it("reads a record from before the tri-state (only false could be stored, meaning 'the agent decides') as null", () => {
    expect(foldSessionRecord(undefined, opened({ auto_extract: false }))?.view.config.auto_extract).toBeNull();
  });

  it('keeps true, false and null of a record written since', () => {
    for (const value of [true, false, null])
      expect(foldSessionRecord(undefined, opened({ auto_extract: value }, SESSION_CONFIG_REVISION))?.view.config.auto_extract).toBe(value);
  });
});
