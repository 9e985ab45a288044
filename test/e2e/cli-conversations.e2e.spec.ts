import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { freePort } from '@tenet/testing';
import { cliEnv, demoSeeded, root, startTenet, stopAll, tenet, type TenetServer } from './support/tenet-cli.js';

/**
 * `tenet chat`, `tenet test` and `tenet replay` as processes against `npm start`'s all-in-one server with the demo
 * agent (offline provider, so every run answers alike).
 */
describe('tenet CLI: chat, conversation tests and replay', () => {
  // Every CLI run is a process transpiling its sources: seconds each on a loaded 2-core machine.
  jest.setTimeout(360_000);
  const dir = mkdtempSync(join(tmpdir(), 'tenet-cli-conv-'));
  let server: TenetServer;
  let ordersPort: number;

  beforeAll(async () => {
    ordersPort = await freePort();
    server = await startTenet(join(dir, 'data'), { TENET_DEMO_TOOLS_PORT: String(ordersPort) });
    await demoSeeded(server.url);
  }, 330_000);

  afterAll(() => stopAll([server], dir));

  it('chat shows the reply with its guidelines, tool call, journey step and sources; --json gives one object per turn', async () => {
    const text = await tenet(['chat', 'demo-support', '-m', 'Where is my order 55555?'], cliEnv(server.url));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^session \S+ with Ada from Acme Support — type a message, Ctrl-D to end\nAda from Acme Support: .*Your order 55555 is shipped with DHL/,
    );
    expect(text.stdout).toContain('  guidelines: demo-order-status (');
    expect(text.stdout).toContain('  tool: acme-orders:get_order_status(order_id="55555") succeeded');
    // While the turn ran: its status changes and the tool call, live on stderr (the reply is one event, not streamed).
    expect(text.stderr).toMatch(
      / {2}Ada from Acme Support: processing…\n(.*\n)* {2}Ada from Acme Support: called acme-orders:get_order_status\n(.*\n)* {2}Ada from Acme Support: typing…\n/,
    );

    const json = await tenet(['chat', 'demo-support', '--json'], cliEnv(server.url), {
      input: 'I want to return an order\nCan I get my money back?\n',
    });
    expect(json.code).toBe(0);
    const turns = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toMatchObject({ customer: 'I want to return an order', journey: { id: 'demo-return', step: 'ask_order' } });
    expect(turns[1]).toMatchObject({
      customer: 'Can I get my money back?',
      matched: expect.arrayContaining([expect.objectContaining({ id: 'demo-refund' })]) as unknown,
      citations: expect.arrayContaining([expect.objectContaining({ source: 'acme-policies' })]) as unknown,
    });
    expect(turns[0]?.['session_id']).toBe(turns[1]?.['session_id']);
  });

  it('tenet test runs the demo suite in CI: every scenario passes, JUnit XML written, exit code 0', async () => {
    const junit = join(dir, 'demo.junit.xml');
    const run = await tenet(['test', join(root, 'examples/demo-agent/tests'), '--junit', junit], cliEnv(server.url));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('5 passed, 0 failed, 5 scenarios');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="tenet test" tests="5" failures="0">');
    expect(xml.match(/<testcase /g)).toHaveLength(5);
    expect(xml).not.toContain('<failure');
  });

  it('tenet test --embedded: the demo definition file alone, applied to a scratch server the CLI starts, passes the demo suite', async () => {
    const env = cliEnv(`http://127.0.0.1:${await freePort()}`, {
      TENET_DEMO_ORDERS_URL: `http://127.0.0.1:${ordersPort}`,
      TENET_DEMO_ORDERS_SOURCE: `http://127.0.0.1:${ordersPort}/openapi.json`,
      TENET_LLM_PROVIDER: 'offline',
    });
    const run = await tenet(['test', join(root, 'examples/demo-agent/tests'), '--embedded', join(root, 'examples/demo-agent')], env);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('5 passed, 0 failed, 5 scenarios');
  });

  it('a deliberately failing scenario fails the run (exit code 1) and the report and JUnit say which expectation and why, per repeat', async () => {
    const file = join(dir, 'failing.test.yaml');
    writeFileSync(
      file,
      [
        'agent: demo-support',
        'scenarios:',
        '  - name: greets',
        '    turns:',
        '      - customer: Hello!',
        '        expect: { matched: [demo-greeting] }',
        '  - name: wrongly expects a cancellation',
        '    turns:',
        '      - customer: Hello!',
        '        expect:',
        '          matched: [demo-cancel]',
        '          reply_contains: [Ada]',
        '',
      ].join('\n'),
    );
    const junit = join(dir, 'failing.junit.xml');
    const run = await tenet(['test', file, '--junit', junit, '--repeat', '2'], cliEnv(server.url), { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      [
        'PASS greets (failing.test.yaml) ×2',
        'FAIL wrongly expects a cancellation (failing.test.yaml) ×2',
        '  turn 1 "Hello!": matched demo-cancel — passed 0/2',
        '      matched were [demo-greeting]',
        '1 passed, 1 failed, 2 scenarios',
        '',
      ].join('\n'),
    );
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="failing.test.yaml" tests="2" failures="1" errors="0">');
    expect(xml).toContain(
      '<failure message="turn 1: matched demo-cancel (passed 0/2)">turn 1 &quot;Hello!&quot;: matched demo-cancel — matched were [demo-greeting]</failure>',
    );

    writeFileSync(
      file,
      'agent: demo-support\nscenarios:\n  - name: typo\n    turns:\n      - customer: Hello!\n        expect: { matchd: [demo-greeting] }\n',
    );
    const invalid = await tenet(['test', file], cliEnv(server.url), { cwd: dir });
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toContain('failing.test.yaml:6: scenarios.0.turns.0.expect: unknown field matchd');
  });

  it('replay reports exactly the recorded turns whose matched guidelines change with one edited guideline, without touching the live sessions', async () => {
    // Live sessions to replay: the demo suite's conversations, recorded on the server.
    expect((await tenet(['test', join(root, 'examples/demo-agent/tests')], cliEnv(server.url))).code).toBe(0);
    const sessions = (await (await fetch(`${server.url}/sessions?agent_id=demo-support`)).json()) as { id: string }[];
    const eventsBefore = new Map<string, number>();
    const expected: string[] = [];
    for (const session of sessions) {
      const events = (await (await fetch(`${server.url}/sessions/${session.id}/events?min_offset=0`)).json()) as {
        kind: string;
        source: string;
        data: { status?: string; message?: string; data?: { matched_guidelines?: { guideline_id: string }[] } };
      }[];
      eventsBefore.set(session.id, events.length);
      let turn = 0;
      for (const event of events) {
        if (event.kind === 'message' && event.source === 'customer') turn += 1;
        if (
          event.kind === 'status' &&
          event.data.status === 'ready' &&
          (event.data.data?.matched_guidelines ?? []).some((m) => m.guideline_id === 'demo-refund')
        )
          expected.push(`session ${session.id} turn ${turn}:`);
      }
    }
    expect(expected.length).toBeGreaterThan(0);

    // The demo definition with one guideline changed: demo-refund now about gift cards.
    const definitions = join(dir, 'changed');
    const yaml = readFileSync(join(root, 'examples/demo-agent/demo-support.yaml'), 'utf8')
      .replace(
        "condition: The customer asks about refunds, returns, or mentions 'money back'",
        'condition: The customer asks about gift cards',
      )
      .replace('file: ../acme-policies.md', `file: ${join(root, 'examples/acme-policies.md')}`);
    expect(yaml).toContain('gift cards');
    rmSync(definitions, { recursive: true, force: true });
    mkdirSync(definitions);
    writeFileSync(join(definitions, 'demo-support.yaml'), yaml);

    const env = cliEnv(server.url, {
      TENET_DEMO_ORDERS_URL: `http://127.0.0.1:${ordersPort}`,
      TENET_DEMO_ORDERS_SOURCE: `http://127.0.0.1:${ordersPort}/openapi.json`,
      TENET_LLM_PROVIDER: 'offline',
    });
    const run = await tenet(['replay', '--sessions', 'agent:demo-support', '--against', definitions, '--limit', '100', '--exit-code'], env);
    expect(run.code).toBe(1);
    const reported = run.stdout.split('\n').filter((line) => line.startsWith('session '));
    expect(reported.map((line) => line.replace(/ ".*$/, '')).sort()).toEqual(expected.sort());
    const changes = run.stdout.split('\n').filter((line) => /^ {2}[+-] matched /.test(line));
    expect(changes).toEqual(expected.map(() => '  - matched demo-refund'));
    const total = [...eventsBefore.keys()].length;
    expect(run.stdout).toMatch(new RegExp(`${expected.length} of \\d+ replayed turns would now match different guidelines\\.\\n$`));

    // The live server is only read: no session gained an event, no session was added, the guideline is unchanged.
    const after = (await (await fetch(`${server.url}/sessions?agent_id=demo-support`)).json()) as { id: string }[];
    expect(after).toHaveLength(total);
    for (const session of after) {
      const events = (await (await fetch(`${server.url}/sessions/${session.id}/events?min_offset=0`)).json()) as unknown[];
      expect(events).toHaveLength(eventsBefore.get(session.id)!);
    }
    const refund = (await (await fetch(`${server.url}/guidelines/demo-refund`)).json()) as { guideline: { condition: string } };
    expect(refund.guideline.condition).toContain('money back');
  });
});
