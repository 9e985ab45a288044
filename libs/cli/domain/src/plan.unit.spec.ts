import { DefinitionError, desiredResources, parseDefinition, type EntryLocations } from './definition-document.js';
import { definitionFromResources, renderDefinition } from './export.js';
import { planChanges, renderPlan } from './plan.js';
import { updateRequests, unsupportedChanges } from './requests.js';
import { canonicalEntry, type Resource } from './resources.js';

const resolved = { services: new Map(), knowledgeHashes: new Map() };
const inputs = { services: new Map(), knowledge: new Map() };

const FILE = `version: 1
agent:
  id: shop
  name: Shop
guidelines:
  - id: refund
    condition: The customer asks for a refund
    action: Explain the 30-day policy
    priority: 10
  - id: hello
    condition: The customer says hello
    action: Greet them
relationships:
  - source: refund
    target: hello
    kind: priority
`;

const desired = (text = FILE): Resource[] => desiredResources(parseDefinition(text, 'shop.yaml'), resolved, new Map() as EntryLocations);

/** The server's view of the same definitions: defaults filled in, the agent tag, server-only fields. */
const serverView = (): Resource[] => [
  {
    kind: 'agent',
    key: 'shop',
    entry: canonicalEntry(
      'agent',
      {
        id: 'shop',
        name: 'Shop',
        max_engine_iterations: 3,
        composition_mode: 'fluid',
        tags: [],
        config: {
          max_history_length: 50,
          temperature: 0.7,
          max_tokens: 2048,
          tool_timeout_secs: 30,
          auto_extract_context: false,
          enable_journeys: true,
        },
        fallback: null,
        budget: null,
        soul: null,
        status: 'active',
        creation_utc: '2026-01-01T00:00:00Z',
      },
      'shop',
    ),
  },
  ...[
    { id: 'refund', condition: 'The customer asks for a refund', action: 'Explain the 30-day policy', priority: 10 },
    { id: 'hello', condition: 'The customer says hello', action: 'Greet them', priority: 0 },
  ].map((g): Resource => ({
    kind: 'guidelines',
    key: g.id,
    entry: canonicalEntry(
      'guidelines',
      {
        ...g,
        criticality: 'medium',
        enabled: true,
        tags: ['agent:shop'],
        metadata: {},
        track: true,
        labels: [],
        tools: [],
        required_context: [],
        creation_utc: 'x',
      },
      'shop',
    ),
  })),
  {
    kind: 'relationships',
    key: 'refund -[priority]-> hello',
    entry: { source: 'refund', target: 'hello', kind: 'priority' },
    serverId: 'r1',
  },
];

describe('planChanges: what apply must do', () => {
  it('plans nothing when the server shows the file with its defaults filled in', () => {
    expect(planChanges(desired(), serverView(), { prune: true }).changes).toEqual([]);
    expect(renderPlan(planChanges(desired(), serverView(), { prune: false }))).toBe('No changes: the server matches the definitions.');
  });

  it('creates everything on an empty server, the agent before its guidelines and those before relationships', () => {
    const plan = planChanges(desired(), [], { prune: false });
    expect(plan.changes.map((c) => `${c.action} ${c.kind} ${c.key}`)).toEqual([
      'create agent shop',
      'create guidelines refund',
      'create guidelines hello',
      'create relationships refund -[priority]-> hello',
    ]);
  });

  it('shows exactly the edited field of one guideline, before and after', () => {
    const edited = FILE.replace('Explain the 30-day policy', 'Explain the 60-day policy');
    const plan = planChanges(desired(edited), serverView(), { prune: false });
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({
      action: 'update',
      kind: 'guidelines',
      key: 'refund',
      fields: [{ path: 'action', before: 'Explain the 30-day policy', after: 'Explain the 60-day policy' }],
    });
    expect(renderPlan(plan)).toContain('~ guidelines refund\n    action: "Explain the 30-day policy" → "Explain the 60-day policy"');
  });

  it('resets a field the file no longer sets to the server default, and sends PATCH in the route shapes', () => {
    const withoutPriority = FILE.replace('    priority: 10\n', '');
    const plan = planChanges(desired(withoutPriority), serverView(), { prune: false });
    const change = plan.changes[0];
    if (change?.action !== 'update') throw new Error('expected an update');
    expect(change.fields).toEqual([{ path: 'priority', before: 10 }]);
    expect(updateRequests(change, 'shop', inputs)).toEqual([
      { method: 'PATCH', path: '/guidelines/refund', body: { priority: 0 }, schema: 'GuidelineUpdateDto' },
    ]);
  });

  it('deletes what the files no longer name only with prune, and never the agent', () => {
    const withoutHello = `version: 1\nagent:\n  id: shop\n  name: Shop\nguidelines:\n  - id: refund\n    condition: The customer asks for a refund\n    action: Explain the 30-day policy\n    priority: 10\n`;
    const kept = planChanges(desired(withoutHello), serverView(), { prune: false });
    expect(kept.changes).toEqual([]);
    expect(kept.unmanaged.map((u) => u.key)).toEqual(['refund -[priority]-> hello', 'hello']);
    const pruned = planChanges(desired(withoutHello), serverView(), { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.key}`)).toEqual([
      'delete relationships refund -[priority]-> hello',
      'delete guidelines hello',
    ]);
  });

  it('tags: the agent tag stays implicit, and a changed tag set becomes {add, remove}', () => {
    const tagged = FILE.replace('    priority: 10\n', '    priority: 10\n    tags: [vip]\n');
    const plan = planChanges(desired(tagged), serverView(), { prune: false });
    const change = plan.changes[0];
    if (change?.action !== 'update') throw new Error('expected an update');
    expect(updateRequests(change, 'shop', inputs)[0]?.body).toEqual({ tags: { add: ['vip'], remove: [] } });
  });

  it('refuses a change the server cannot make in place', () => {
    const untracked = FILE.replace('    priority: 10\n', '    priority: 10\n    track: false\n');
    expect(unsupportedChanges(planChanges(desired(untracked), serverView(), { prune: false }).changes)).toEqual([
      expect.stringContaining('guidelines refund: track cannot be changed in place'),
    ]);
  });
});

describe('intents in definition files', () => {
  const WITH_INTENTS = `${FILE}journeys:
  - id: returns
    title: Returns
    description: Take an order back
    conditions: [The customer wants to return an order]
intents:
  - id: track
    name: track_order
    keywords: [where is my order]
    parameters:
      type: object
      properties: { order_id: { type: string, pattern: '^[0-9]+$' } }
    tool: orders:get_order_status
`;
  /** GET /intents/track as the server shows it: every field, defaults filled in, the agent tag. */
  const serverIntent = (changes: Record<string, unknown> = {}): Resource => ({
    kind: 'intents',
    key: 'track',
    entry: canonicalEntry(
      'intents',
      {
        id: 'track',
        name: 'track_order',
        description: '',
        examples: [],
        keywords: ['where is my order'],
        parameters: { type: 'object', properties: { order_id: { pattern: '^[0-9]+$', type: 'string' } } },
        tool: 'orders:get_order_status',
        journey_id: null,
        tags: ['agent:shop'],
        creation_utc: 'x',
        ...changes,
      },
      'shop',
    ),
  });

  it('are created after the journeys and tools they lead to, tagged with their agent, and compare equal to the server view', () => {
    const plan = planChanges(desired(WITH_INTENTS), [], { prune: false });
    expect(plan.changes.map((c) => `${c.kind} ${c.key}`)).toEqual([
      'agent shop',
      'guidelines refund',
      'guidelines hello',
      'journeys returns',
      'intents track',
      'relationships refund -[priority]-> hello',
    ]);
    const intent = desired(WITH_INTENTS).find((r) => r.kind === 'intents');
    expect(intent?.entry).toEqual(serverIntent().entry);
  });

  it('an edited parameter is shown at its path; switching the tool for a journey clears the tool in the same PATCH', () => {
    const current = serverIntent({ parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4}$' } } } });
    const edited = planChanges(
      desired(WITH_INTENTS).filter((r) => r.kind === 'intents'),
      [current],
      { prune: false },
    );
    expect(renderPlan(edited)).toContain('~ intents track\n    parameters.properties.order_id.pattern: "^[0-9]{4}$" → "^[0-9]+$"');
    const toJourney = WITH_INTENTS.replace('    tool: orders:get_order_status\n', '    journey_id: returns\n    tags: [vip]\n');
    const change = planChanges(
      desired(toJourney).filter((r) => r.kind === 'intents'),
      [serverIntent()],
      { prune: false },
    ).changes[0];
    if (change?.action !== 'update') throw new Error('expected an update');
    expect(updateRequests(change, 'shop', inputs)).toEqual([
      {
        method: 'PATCH',
        path: '/intents/track',
        body: { tool: null, journey_id: 'returns', tags: { add: ['vip'], remove: [] } },
        schema: 'IntentUpdateDto',
      },
    ]);
  });

  it('export writes them back without defaults or the agent tag', () => {
    const exported = renderDefinition(definitionFromResources([...serverView(), serverIntent()], new Map()));
    expect(exported).toContain('intents:\n  - id: track\n    name: track_order\n    keywords:\n      - where is my order\n');
    expect(exported).not.toMatch(/journey_id|description: ""|agent:shop/);
  });
});

describe('parseDefinition: problems at their file and line', () => {
  it('names the line of an unknown field and of a missing one', () => {
    const bad = FILE.replace('    priority: 10\n', '    priorty: 10\n').replace(
      '  - id: hello\n    condition: The customer says hello\n',
      '  - id: hello\n',
    );
    let caught: unknown;
    try {
      parseDefinition(bad, 'shop.yaml');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    expect((caught as DefinitionError).problems).toEqual(
      expect.arrayContaining([
        { file: 'shop.yaml', line: 6, path: 'guidelines.0', message: 'unknown field priorty' },
        { file: 'shop.yaml', line: 10, path: 'guidelines.1', message: 'condition is required' },
      ]),
    );
  });

  it('refuses the same id twice in one kind, at the second one', () => {
    const twice = FILE.replace('  - id: hello', '  - id: refund');
    expect(() => parseDefinition(twice, 'shop.yaml')).toThrow('shop.yaml:10: guidelines.1: refund appears twice in guidelines');
  });

  it('reports YAML syntax errors with their line', () => {
    expect(() => parseDefinition('version: 1\nagent: [\n', 'broken.yaml')).toThrow(/^broken\.yaml:\d+: /);
  });
});

describe('definitionFromResources: export', () => {
  it('renders what was parsed back to a file that parses to the same resources', () => {
    const exported = renderDefinition(definitionFromResources(serverView(), new Map()));
    const byKey = (resources: Resource[]): Resource[] =>
      [...resources].sort((a, b) => `${a.kind} ${a.key}`.localeCompare(`${b.kind} ${b.key}`));
    expect(byKey(desired(exported))).toEqual(byKey(desired()));
    expect(exported).not.toContain('creation_utc');
    expect(exported).not.toContain('agent:shop');
  });
});
