import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { ScriptedProvider } from '@tenet/llm/testing';
import { startOpenApiToolServer, type TestToolServer } from '@tenet/tools-service/testing';

/** `promtool` from Debian's `prometheus` package, when installed (.ci/run installs it). */
const promtool = (() => {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
})();

/**
 * A turn's tool calls are counted by tool service, tool and outcome in `tenet_tool_calls_total`,
 * and the process's /metrics passes `promtool check metrics` (no `_total` suffix on gauges).
 */
describe('tool-call metrics and a promtool-clean /metrics (embedded, scripted model)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let orders: TestToolServer;
  const provider = new ScriptedProvider();

  const call = async (path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: unknown; text: string }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-tool-metrics-'));
    orders = await startOpenApiToolServer();
    provider.answerAlways<{ message: string; guidelines: { id: string; tools?: { name: string }[] }[] }>('match_guidelines', (request) => ({
      matches: request.task.input.guidelines.map((g) => ({
        guideline_id: g.id,
        relevance: 1,
        confidence: 1,
        reasoning: 'scripted',
        tool_arguments: (g.tools ?? []).map((tool) => ({
          tool_name: tool.name,
          arguments_json: JSON.stringify(tool.name.endsWith('fail') ? {} : { order_id: 'A-1' }),
        })),
      })),
    }));
    provider.answerAlways('compose_reply', () => ({
      message: 'Done.',
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    }));
    ({ app, url } = await startAllInOne(
      {
        TENET_MODE: 'embedded',
        TENET_DATA_DIR: dir,
        TENET_DEMO: 'off',
        TENET_LLM_PROVIDER: 'offline',
        TENET_SERVICE_NAME: 'tenet-tool-metrics',
      },
      { provider, toolAllowedHosts: [orders.hostPort] },
    ));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await orders?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function turn(sessionId: string): Promise<void> {
    const posted = (
      await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message: 'Where is my order?' })
    ).body as { offset: number };
    for (let offset = posted.offset + 1; ;) {
      const events = (await call(`/sessions/${sessionId}/events?min_offset=${offset}&kinds=status&wait_for_data=30`)).body as {
        offset: number;
        data: { status?: string };
      }[];
      if (events.some((e) => e.data.status === 'ready' || e.data.status === 'error')) return;
      offset = (events.at(-1)?.offset ?? offset - 1) + 1;
    }
  }

  it('counts each call by tool service, tool and outcome', async () => {
    expect(
      (await call('/services/orders', 'PUT', { kind: 'openapi', openapi: { url: orders.service.url, source: orders.service.source } }))
        .status,
    ).toBe(200);
    for (const tool of ['get_order', 'fail']) {
      const agent = (await call('/agents', 'POST', { name: `metrics ${tool}` })).body as { id: string };
      expect(
        (
          await call('/guidelines', 'POST', {
            condition: 'The customer asks about an order',
            action: 'Look it up',
            tools: [`orders:${tool}`],
            tags: [`agent:${agent.id}`],
          })
        ).status,
      ).toBe(201);
      await turn(((await call('/sessions', 'POST', { agent_id: agent.id })).body as { id: string }).id);
    }
    const metrics = (await call('/metrics')).text;
    expect(metrics).toMatch(
      /^tenet_tool_calls_total\{tool_service="orders",tool="get_order",outcome="ok",service="tenet-tool-metrics"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^tenet_tool_calls_total\{tool_service="orders",tool="fail",outcome="error",service="tenet-tool-metrics"\} 1$/m,
    );
  }, 90_000);

  it('/metrics passes promtool check metrics (no gauge with a _total suffix)', async () => {
    const metrics = (await call('/metrics')).text;
    expect(metrics).not.toMatch(/^# TYPE \S+_total gauge$/m);
    if (!promtool) {
      console.warn(
        'promtool not installed (Debian package "prometheus"): skipping `promtool check metrics`; the _total-gauge check above still ran',
      );
      return;
    }
    const checked = spawnSync(promtool, ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
    expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}`.trim() }).toEqual({ status: 0, problems: '' });
    expect(execFileSync(promtool, ['--version'], { encoding: 'utf8' })).toMatch(/promtool/);
  });
});
