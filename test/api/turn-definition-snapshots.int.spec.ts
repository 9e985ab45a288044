import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { AGENT_DEFINITIONS, type AgentDefinitionSnapshots } from '@tenet/catalog-data-access';
import { startAllInOne as startGateway } from '@tenet/hosts';
import { gatewayHttp } from './support/gateway-http.js';

/**
 * A turn reads an agent's definitions from its snapshot (AGENT_DEFINITIONS, one log read per turn when nothing
 * changed). A definition change — a guideline edited, a tool added to the agent, a journey created or edited —
 * is in the very next snapshot, in the process that wrote it and in another process on the same log (two hosts
 * on one SQLite file: the second reads the first's writes through the log, with no message between them).
 */
describe('turn definition snapshots (embedded adapters, two hosts on one log)', () => {
  let dir: string;
  let writer: { app: INestApplication; url: string };
  let reader: { app: INestApplication; url: string };
  const { call, created } = gatewayHttp(() => writer.url);
  const snapshots = (host: { app: INestApplication }) => host.app.get<AgentDefinitionSnapshots>(AGENT_DEFINITIONS);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-snapshots-'));
    writer = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' });
    reader = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' });
  });

  afterAll(async () => {
    await reader?.app.close();
    await writer?.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves unchanged definitions from one snapshot with one log read, and rebuilds on every kind of change, in both processes', async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Support' });
    const guideline = await created<{ id: string }>('/guidelines', {
      condition: 'The customer asks about refunds',
      action: 'Explain the policy',
      tags: [`agent:${agent.id}`],
    });
    const other = await created<{ id: string }>('/agents', { name: 'Other' });
    await created('/guidelines', { condition: 'Only for the other agent', action: 'Say hi', tags: [`agent:${other.id}`] });

    for (const host of [writer, reader]) {
      const first = await snapshots(host).forTurn(agent.id);
      expect(first?.guidelines.map((g) => [g.id, g.condition])).toEqual([[guideline.id, 'The customer asks about refunds']]);
      // Nothing changed: the same snapshot object (what is derived from it stays), one read of the log, no rebuild.
      const [reads, builds] = [snapshots(host).changes.reads, snapshots(host).builds];
      const again = await snapshots(host).forTurn(agent.id);
      expect(again).toBe(first);
      expect(again?.derived('n', () => ({}))).toBe(first?.derived('n', () => ({})));
      expect([snapshots(host).changes.reads - reads, snapshots(host).builds - builds]).toEqual([1, 0]);
    }

    // A guideline edited.
    expect((await call(`/guidelines/${guideline.id}`, 'PATCH', { condition: 'The customer wants money back' })).status).toBe(200);
    for (const host of [writer, reader])
      expect((await snapshots(host).forTurn(agent.id))?.guidelines.map((g) => g.condition)).toEqual(['The customer wants money back']);

    // A new tool on the agent.
    const tool = { name: 'lookup_order', description: 'Looks an order up', parameters: { type: 'object', properties: {} } };
    expect((await call(`/agents/${agent.id}`, 'PATCH', { tools: [tool] })).status).toBe(200);
    for (const host of [writer, reader])
      expect((await snapshots(host).forTurn(agent.id))?.agent.tools.map((t) => t.name)).toEqual(['lookup_order']);

    // A journey scoped to the agent: its condition guideline applies; an edit of its conditions is seen too.
    const journey = await created<{ id: string; conditions: string[] }>('/journeys', {
      title: 'Returns',
      description: 'Walks through a return',
      conditions: ['The customer wants to return an item'],
      tags: [`agent:${agent.id}`],
    });
    for (const host of [writer, reader])
      expect((await snapshots(host).forTurn(agent.id))?.guidelines.map((g) => g.condition)).toContain(
        'The customer wants to return an item',
      );
    expect((await call(`/journeys/${journey.id}`, 'PATCH', { conditions: { remove: journey.conditions } })).status).toBe(200);
    for (const host of [writer, reader])
      expect((await snapshots(host).forTurn(agent.id))?.guidelines.map((g) => g.condition)).not.toContain(
        'The customer wants to return an item',
      );

    // A context variable and a term; then a value of the variable, which is not a definition: no rebuild.
    await created('/context-variables', { name: 'plan', description: 'The plan', tags: [`agent:${agent.id}`] });
    for (const host of [writer, reader]) expect((await snapshots(host).forTurn(agent.id))?.variables.map((v) => v.name)).toEqual(['plan']);
    const unchanged = await snapshots(reader).forTurn(agent.id);
    const variable = unchanged!.variables[0]!;
    expect((await call(`/context-variables/${variable.id}/DEFAULT`, 'PUT', { data: 'gold' })).status).toBe(200);
    expect(await snapshots(reader).forTurn(agent.id)).toBe(unchanged);

    // The other agent's guideline never enters this agent's snapshot; a deleted agent has none.
    expect((await snapshots(reader).forTurn(agent.id))?.guidelines.map((g) => g.condition)).not.toContain('Only for the other agent');
    expect((await call(`/agents/${other.id}`, 'DELETE')).status).toBe(204);
    expect(await snapshots(reader).forTurn(other.id)).toBeUndefined();
  });
});
