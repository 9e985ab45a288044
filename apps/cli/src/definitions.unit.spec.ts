import { readFileSync } from 'node:fs';
import {
  agentDefinitionJsonSchema,
  canonicalEntry,
  desiredResources,
  keyOf,
  parseDefinition,
  type Entry,
  type Resource,
  type ResourceKind,
} from '@tenet/cli-domain';

const root = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

describe('the published JSON Schema of definition files', () => {
  it('is the one rendered from the TypeBox source (regenerate with npm run cli:schema)', () => {
    expect(JSON.parse(read('apps/cli/schema/agent-definition.schema.json'))).toEqual(agentDefinitionJsonSchema());
  });
});

describe('examples/demo-agent (the demo as a definition file)', () => {
  it('defines the same agent npm start seeds from examples/demo-agent.json', () => {
    const yaml = desiredResources(
      parseDefinition(read('examples/demo-agent/demo-support.yaml'), 'demo-support.yaml'),
      { services: new Map(), knowledgeHashes: new Map() },
      new Map(),
    );
    const json = JSON.parse(read('examples/demo-agent.json')) as {
      agent: Entry & { id: string };
      guidelines: Entry[];
      relationships: Entry[];
      journeys: Entry[];
      intents: Entry[];
      services: { name: string; kind: string }[];
      knowledge: { id: string; title: string; url?: string }[];
    };
    const agentId = json.agent.id;
    const resource = (kind: ResourceKind, entry: Entry): Resource => ({
      kind,
      key: keyOf(kind, entry),
      entry: canonicalEntry(kind, entry, agentId),
    });
    const fromJson: Resource[] = [
      resource('agent', json.agent),
      ...json.guidelines.map((g) => resource('guidelines', g)),
      ...json.relationships.map((r) => resource('relationships', r)),
      ...json.journeys.map(({ requires_service: _service, ...j }) => resource('journeys', j)),
      // npm start tags each intent with its agent (apply adds the same tag).
      ...json.intents.map(({ requires_service: _service, ...i }) => resource('intents', { ...i, tags: [`agent:${agentId}`] })),
    ];
    expect(fromJson.filter((r) => r.kind === 'intents')).toHaveLength(5);
    const sorted = (resources: Resource[]): Resource[] =>
      [...resources].sort((a, b) => `${a.kind} ${a.key}`.localeCompare(`${b.kind} ${b.key}`));
    expect(sorted(yaml.filter((r) => !['tool_services', 'knowledge'].includes(r.kind)))).toEqual(sorted(fromJson));
    expect(yaml.filter((r) => r.kind === 'tool_services').map((r) => [r.key, r.entry['kind']])).toEqual(
      json.services.map((s) => [s.name, s.kind]),
    );
    expect(
      yaml.filter((r) => r.kind === 'knowledge').map((r) => ({ id: r.entry['id'], title: r.entry['title'], url: r.entry['url'] })),
    ).toEqual(json.knowledge.map(({ id, title, url }) => ({ id, title, url })));
  });
});
