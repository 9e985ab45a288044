import { readFileSync } from 'node:fs';
import type { Logger } from '@nestjs/common';

interface DemoDefinition {
  agent: { id: string; name: string; description: string };
  guidelines: { id: string; condition: string; action: string; priority: number }[];
}

/**
 * Seeds the demo agent from examples/ through Tenet's own REST API (so it passes the same validation as any
 * client's definitions). Idempotent: an agent or guideline that already exists is left as it is.
 */
export async function loadDemoAgent(baseUrl: string, file: URL, logger: Logger): Promise<string> {
  const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoDefinition;
  const call = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  if ((await call('GET', `/agents/${demo.agent.id}`)).status === 404) {
    const created = await call('POST', '/agents', demo.agent);
    if (created.status !== 201) throw new Error(`demo agent rejected: ${created.status} ${await created.text()}`);
  }
  for (const guideline of demo.guidelines) {
    if ((await call('GET', `/guidelines/${guideline.id}`)).status !== 404) continue;
    const created = await call('POST', '/guidelines', { ...guideline, tags: [`agent:${demo.agent.id}`] });
    if (created.status !== 201) throw new Error(`demo guideline ${guideline.id} rejected: ${created.status} ${await created.text()}`);
  }
  logger.log(`demo agent "${demo.agent.name}" (${demo.agent.id}) ready with ${demo.guidelines.length} guidelines — chat at ${baseUrl}/chat`);
  return demo.agent.id;
}
