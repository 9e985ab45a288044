import { readFileSync } from 'node:fs';
import type { Logger } from '@nestjs/common';

interface DemoDefinition {
  agent: { id: string; name: string; description: string };
  /** Tool services the demo registers; `url`/`source` come from the bundled service it started (`started`). */
  services?: { name: string; kind: 'openapi'; started: 'orders' }[];
  guidelines: { id: string; condition: string; action: string; priority: number; tools?: string[] }[];
  /** Between demo guidelines; created together with their source guideline. */
  relationships?: { source: string; target: string; kind: string }[];
  /** Journeys of the agent (POST /journeys bodies); `requires_service`: left out when that service did not start. */
  journeys?: ({ id: string; requires_service?: string } & Record<string, unknown>)[];
  /** What customers come for (docs/data-model.md#intents; POST /intents bodies); `requires_service`: left out when that service did not start. */
  intents?: ({ id: string; requires_service?: string } & Record<string, unknown>)[];
  /** Markdown documents next to the definition, ingested as the agent's knowledge sources (docs/data-model.md#retrieval). */
  knowledge?: { id: string; title: string; file: string; url?: string }[];
}

/** Bundled example tool services started by the host, by the name demo-agent.json refers to them. */
export interface DemoToolServices {
  orders?: { url: string; source: string };
}

export interface DemoLoadOptions {
  /** Where `/knowledge/sources` is served (the memory store's own port in start:distributed). */
  knowledgeUrl?: string;
  /** An admin key of the `default` workspace (TENET_ADMIN_KEY) for a gateway that requires keys. */
  adminKey?: string;
}

/** The gateway requires a key and none (or a wrong one) was given: the demo is not loaded, the server runs on. */
export class DemoNeedsKeyError extends Error {
  constructor(status: number) {
    super(
      `the API answered ${status}: with API keys required the demo agent is seeded with TENET_ADMIN_KEY (an admin key of the default workspace); set it, or load definitions with your own key`,
    );
    this.name = 'DemoNeedsKeyError';
  }
}

/**
 * Seeds the demo agent from examples/ through Tenet's own REST API (so it passes the same validation as any
 * client's definitions), as an admin of `default` when the gateway requires keys. Idempotent: an agent or
 * guideline that already exists is left as it is.
 */
export async function loadDemoAgent(
  baseUrl: string,
  file: URL,
  logger: Logger,
  started: DemoToolServices = {},
  options: DemoLoadOptions = {},
): Promise<string> {
  const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoDefinition;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(options.adminKey ? { authorization: `Bearer ${options.adminKey}` } : {}),
  };
  const call = async (method: string, path: string, body?: unknown, url = baseUrl): Promise<Response> =>
    fetch(`${url}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  const existing = await call('GET', `/agents/${demo.agent.id}`);
  if (existing.status === 401 || existing.status === 403) throw new DemoNeedsKeyError(existing.status);
  if (existing.status === 404) {
    const created = await call('POST', '/agents', demo.agent);
    if (created.status !== 201) throw new Error(`demo agent rejected: ${created.status} ${await created.text()}`);
  }
  // Registered on every start (Parlant's PUT replaces it): the bundled service gets a new port each time.
  const registered = new Set<string>();
  for (const service of demo.services ?? []) {
    const running = started[service.started];
    if (!running) continue;
    const put = await call('PUT', `/services/${service.name}`, {
      kind: service.kind,
      [service.kind]: { url: running.url, source: running.source },
    });
    if (put.status !== 200) throw new Error(`demo tool service ${service.name} rejected: ${put.status} ${await put.text()}`);
    registered.add(service.name);
  }
  const createdNow = new Set<string>();
  for (const guideline of demo.guidelines) {
    // A guideline using a service's tool needs that service (not started: TENET_DEMO=off for the tools).
    if ((guideline.tools ?? []).some((tool) => !registered.has(tool.split(':')[0] ?? ''))) continue;
    if ((await call('GET', `/guidelines/${guideline.id}`)).status !== 404) continue;
    const created = await call('POST', '/guidelines', { ...guideline, tags: [`agent:${demo.agent.id}`] });
    if (created.status !== 201) throw new Error(`demo guideline ${guideline.id} rejected: ${created.status} ${await created.text()}`);
    createdNow.add(guideline.id);
  }
  // Once all guidelines exist; only with a source created just now, so a restart does not add it twice.
  for (const relationship of (demo.relationships ?? []).filter((r) => createdNow.has(r.source))) {
    const related = await call('POST', '/relationships', {
      source_guideline: relationship.source,
      target_guideline: relationship.target,
      kind: relationship.kind,
    });
    if (related.status !== 201)
      throw new Error(
        `demo relationship ${relationship.source} → ${relationship.target} rejected: ${related.status} ${await related.text()}`,
      );
  }
  // Journeys last: their tool steps name the services' tools, and they apply to the agent by its tag.
  for (const { requires_service: service, ...journey } of demo.journeys ?? []) {
    if (service !== undefined && !registered.has(service)) continue;
    if ((await call('GET', `/journeys/${journey.id}`)).status !== 404) continue;
    const created = await call('POST', '/journeys', { ...journey, tags: [`agent:${demo.agent.id}`] });
    if (created.status !== 201) throw new Error(`demo journey ${journey.id} rejected: ${created.status} ${await created.text()}`);
  }
  // Intents after the services and journeys they may lead to.
  for (const { requires_service: service, ...intent } of demo.intents ?? []) {
    if (service !== undefined && !registered.has(service)) continue;
    if ((await call('GET', `/intents/${intent.id}`)).status !== 404) continue;
    const created = await call('POST', '/intents', { ...intent, tags: [`agent:${demo.agent.id}`] });
    if (created.status !== 201) throw new Error(`demo intent ${intent.id} rejected: ${created.status} ${await created.text()}`);
  }
  for (const source of demo.knowledge ?? [])
    await ingestKnowledge(call, options.knowledgeUrl ?? baseUrl, demo.agent.id, source, new URL(source.file, file), logger);
  logger.log(
    `demo agent "${demo.agent.name}" (${demo.agent.id}) ready with ${demo.guidelines.length} guidelines and ${demo.intents?.length ?? 0} intents — chat at ${baseUrl}/chat`,
  );
  return demo.agent.id;
}

/**
 * Ingests a bundled document for the agent (`POST /knowledge/sources` with its id: unchanged content is a no-op).
 * The memory store may still be starting (its own process in start:distributed): retried for a minute.
 */
async function ingestKnowledge(
  call: (method: string, path: string, body: unknown, url: string) => Promise<Response>,
  url: string,
  agentId: string,
  source: { id: string; title: string; url?: string },
  file: URL,
  logger: Logger,
): Promise<void> {
  const body = {
    id: source.id,
    title: source.title,
    ...(source.url ? { url: source.url } : {}),
    format: 'markdown',
    content: readFileSync(file, 'utf8'),
    agent_ids: [agentId],
  };
  let last = '';
  for (let attempt = 0; attempt < 120; attempt++) {
    const reply = await call('POST', '/knowledge/sources', body, url).catch((error: unknown) => String(error));
    if (typeof reply !== 'string' && reply.status === 201) {
      logger.log(`demo knowledge "${source.title}" (${source.id}) ingested for ${agentId}`);
      return;
    }
    last = typeof reply === 'string' ? reply : `${reply.status} ${await reply.text()}`;
    if (typeof reply !== 'string' && reply.status >= 400 && reply.status < 500 && reply.status !== 404) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`demo knowledge ${source.id} not ingested: ${last}`);
}
