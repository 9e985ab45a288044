import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { jest } from '@jest/globals';
import { generateSecretsKey } from '@tenet/secrets';
import { freePort } from '@tenet/testing';
import { cliEnv, demoSeeded, root, startTenet, stopAll, tenet, type TenetServer } from './support/tenet-cli.js';

const require = createRequire(import.meta.url);
const memoryManifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
/** An MCP server spoken to over stdio (npm's server-memory), run by the tool executor with this node. */
const MEMORY_SERVER = join(
  dirname(memoryManifest),
  Object.values((JSON.parse(readFileSync(memoryManifest, 'utf8')) as { bin: Record<string, string> }).bin)[0] ?? '',
);

/**
 * `tenet apply / diff / export` as processes against two real all-in-one servers: `demo` as `npm start` runs it
 * (the demo agent seeded from examples/), and `empty` (no demo, API keys required) to apply to.
 */
describe('tenet CLI: definitions as code (apply, diff, export)', () => {
  // Every CLI run is a process transpiling its sources: seconds each on a loaded 2-core machine.
  jest.setTimeout(360_000);
  const dir = mkdtempSync(join(tmpdir(), 'tenet-cli-defs-'));
  const adminKey = `admin-${'k'.repeat(40)}`;
  let demo: TenetServer;
  let empty: TenetServer;
  let ordersPort: number;
  let sourceEnv: Record<string, string>;

  beforeAll(async () => {
    ordersPort = await freePort();
    sourceEnv = { ACME_ORDERS_OPENAPI_SOURCE: `http://127.0.0.1:${ordersPort}/openapi.json` };
    [demo, empty] = await Promise.all([
      startTenet(join(dir, 'demo'), { TENET_DEMO_TOOLS_PORT: String(ordersPort) }),
      startTenet(join(dir, 'empty'), {
        TENET_DEMO: 'off',
        TENET_TOOL_ALLOWED_HOSTS: `127.0.0.1:${ordersPort}`,
        TENET_AUTH: 'on',
        TENET_ADMIN_KEY: adminKey,
        TENET_SECRETS_KEY: generateSecretsKey(),
        TENET_TOOL_STDIO_COMMANDS: process.execPath,
      }),
    ]);
    await demoSeeded(demo.url);
  }, 330_000);

  afterAll(() => stopAll([demo, empty], dir));

  const onEmpty = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
    cliEnv(empty.url, { TENET_API_KEY: adminKey, ...sourceEnv, ...extra });

  it('round trip: export of the demo, applied to an empty server, exports identically; a second apply changes nothing; diff shows one edited field', async () => {
    const first = join(dir, 'first');
    const exported = await tenet(['export', 'demo-support', '-o', first, '--knowledge-from', join(root, 'examples')], cliEnv(demo.url));
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const yaml = readFileSync(join(first, 'demo-support.yaml'), 'utf8');
    expect(yaml).toContain('id: demo-refund');
    expect(yaml).toContain('file: knowledge/acme-policies.md');
    expect(yaml).toContain('intents:\n  - id: demo-intent-cancel\n    name: cancel_order\n');

    const applied = await tenet(['apply', '-f', first], onEmpty());
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('agent demo-support: 18 change(s)');
    // Dependency order: the service before the guideline using its tool, journeys and services before the intents leading
    // to them, guidelines before their relationship.
    const order = [
      'created tool_services acme-orders',
      'created agent demo-support',
      'created guidelines demo-order-status',
      'created journeys demo-return',
      'created intents demo-intent-track',
      'created relationships demo-order-status -[priority]-> demo-delivery',
      'created knowledge acme-policies',
    ];
    expect(order.map((line) => applied.stdout.indexOf(line))).toEqual(
      [...order.map((line) => applied.stdout.indexOf(line))].sort((a, b) => a - b),
    );
    expect(order.every((line) => applied.stdout.includes(line))).toBe(true);

    const again = await tenet(['apply', '-f', first], onEmpty());
    expect(again).toMatchObject({ code: 0, stdout: 'agent demo-support: no changes (the server already matches the definitions)\n' });

    const second = join(dir, 'second');
    const reexported = await tenet(['export', 'demo-support', '-o', second, '--knowledge-from', join(first, 'knowledge')], onEmpty());
    expect(reexported.code).toBe(0);
    expect(readFileSync(join(second, 'demo-support.yaml'), 'utf8')).toBe(yaml);
    expect(readFileSync(join(second, 'knowledge', 'acme-policies.md'), 'utf8')).toBe(
      readFileSync(join(root, 'examples', 'acme-policies.md'), 'utf8'),
    );

    writeFileSync(
      join(second, 'demo-support.yaml'),
      yaml.replace('Tell them a human colleague will join the conversation shortly', 'Tell them a human colleague joins within 5 minutes'),
    );
    const diff = await tenet(['diff', '-f', second, '--exit-code'], onEmpty());
    expect(diff.code).toBe(1);
    expect(diff.stdout).toBe(
      'agent demo-support:\n~ guidelines demo-human\n    action: "Tell them a human colleague will join the conversation shortly" → "Tell them a human colleague joins within 5 minutes"\n0 to add, 1 to change, 0 to remove.\n',
    );

    // The committed example (npm start's demo as a definition file) is what the server now holds.
    const example = await tenet(
      ['diff', '-f', join(root, 'examples/demo-agent'), '--exit-code'],
      onEmpty({
        TENET_DEMO_ORDERS_URL: `http://127.0.0.1:${ordersPort}`,
        TENET_DEMO_ORDERS_SOURCE: sourceEnv['ACME_ORDERS_OPENAPI_SOURCE']!,
      }),
    );
    expect(example).toMatchObject({ code: 0, stdout: 'agent demo-support:\nNo changes: the server matches the definitions.\n' });
  });

  it('refuses the whole apply when any entry would be refused, naming each file and line, and writes nothing', async () => {
    const file = join(dir, 'shop.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'agent:',
        '  id: shop-refused',
        '  name: Shop',
        'guidelines:',
        '  - id: shop-ok',
        '    condition: The customer says hello',
        '    action: Greet them',
        '  - id: shop-bad',
        '    condition: The customer asks for a refund',
        '    priority: 5000',
        'tool_services:',
        '  - name: shop-api',
        '    kind: mcp',
        '    url: { env: SHOP_MCP_URL }',
        '',
      ].join('\n'),
    );
    const refusedEnv = await tenet(['apply', '-f', file], onEmpty());
    expect(refusedEnv.code).toBe(4);
    expect(refusedEnv.stderr).toContain(`${file}:15: tool_services.0.url: environment variable SHOP_MCP_URL is not set`);

    writeFileSync(file, readFileSync(file, 'utf8').replace(/tool_services:[\s\S]*$/, ''));
    const refused = await tenet(['apply', '-f', file], onEmpty());
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(`refused (nothing was written):\n  ${file}:11: guidelines.1.priority: must be <= 1000\n`);
    const agent = await fetch(`${empty.url}/agents/shop-refused`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(agent.status).toBe(404);
    const guideline = await fetch(`${empty.url}/guidelines/shop-ok`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(guideline.status).toBe(404);
  });

  it("an intent the server refuses (a tool no agent defines) stops the apply at the intent's file and line, saying what was applied", async () => {
    const file = join(dir, 'intent-refused.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'agent:',
        '  id: shop-intents',
        '  name: Shop',
        'intents:',
        '  - id: shop-track',
        '    name: track_order',
        '    tool: lookup_order',
        '',
      ].join('\n'),
    );
    const refused = await tenet(['apply', '-f', file], onEmpty());
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(
      `refused (already applied before the refusal: created agent shop-intents):\n  ${file}:8: intents.0.tool: tool must name a tool defined on an agent the intent applies to: lookup_order is not defined (refused by the server)\n`,
    );
    expect((await fetch(`${empty.url}/intents/shop-track`, { headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(404);
  });

  it('refuses to re-register a tool service whose file has no auth over credentials stored on the server, and leaves them as they are', async () => {
    const secret = 'pk-live-0123456789abcdef-WXYZ';
    const file = join(dir, 'keyed.yaml');
    const withAuth = [
      'version: 1',
      'agent:',
      '  id: shop-keyed',
      '  name: Shop',
      'tool_services:',
      '  - name: keyed-orders',
      '    kind: openapi',
      `    url: http://127.0.0.1:${ordersPort}`,
      '    source: { env: ACME_ORDERS_OPENAPI_SOURCE }',
      '    auth: { scheme: api_key, in: header, name: api_key, value: { env: KEYED_ORDERS_KEY } }',
      '',
    ].join('\n');
    writeFileSync(file, withAuth);
    expect(await tenet(['apply', '-f', file], onEmpty({ KEYED_ORDERS_KEY: secret }))).toMatchObject({
      code: 0,
      stderr: '',
      stdout: 'agent shop-keyed: 2 change(s)\n  created tool_services keyed-orders\n  created agent shop-keyed\n',
    });
    const read = async () =>
      (await (await fetch(`${empty.url}/services/keyed-orders`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as Record<
        string,
        unknown
      >;
    const stored = await read();
    expect(stored['auth']).toEqual({ scheme: 'api_key', secret_hint: '…WXYZ' });

    // Without auth the file leaves the credentials alone: nothing to do while the rest matches.
    const withoutAuth = withAuth.replace(/ {4}auth: .*\n/, '');
    writeFileSync(file, withoutAuth);
    expect(await tenet(['apply', '-f', file], onEmpty())).toMatchObject({
      code: 0,
      stdout: 'agent shop-keyed: no changes (the server already matches the definitions)\n',
    });

    // A changed URL needs PUT /services, which replaces the whole registration: refused before anything is written.
    writeFileSync(file, withoutAuth.replace(`url: http://127.0.0.1:${ordersPort}`, `url: http://127.0.0.1:${ordersPort}/v2`));
    const refused = await tenet(['apply', '-f', file], onEmpty());
    expect(refused).toMatchObject({ code: 4, stdout: '' });
    expect(refused.stderr).toBe(
      `refused (nothing was written):\n  ${file}:6: tool_services.0: tool service keyed-orders has credentials on the server that the file does not give; re-registering it would drop them: add auth with the secret as { env: NAME }\n`,
    );
    // The registration is the one stored before: same URL, same credentials (a re-registration without auth drops them).
    expect(await read()).toEqual(stored);
  });

  it('an MCP server run over stdio: command, args and env (from the environment) register it; export writes the command; a file without env may not re-register it', async () => {
    const file = join(dir, 'notes.yaml');
    const yaml = [
      'version: 1',
      'agent:',
      '  id: shop-notes',
      '  name: Shop',
      'guidelines:',
      '  - id: notes-recall',
      '    condition: The customer asks what we know about them',
      '    action: Read the notes graph and summarise it',
      '    tools: [notes:read_graph]',
      'tool_services:',
      '  - name: notes',
      '    kind: mcp',
      `    command: ${process.execPath}`,
      `    args: [${JSON.stringify(MEMORY_SERVER)}]`,
      '    env: { MEMORY_FILE_PATH: { env: NOTES_FILE } }',
      '',
    ].join('\n');
    writeFileSync(file, yaml);
    const notesEnv = { NOTES_FILE: join(dir, 'notes.jsonl') };
    const created = await tenet(['apply', '-f', file], onEmpty(notesEnv));
    expect(created).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        'agent shop-notes: 3 change(s)\n  created tool_services notes\n  created agent shop-notes\n  created guidelines notes-recall\n',
    });
    expect(await tenet(['apply', '-f', file], onEmpty(notesEnv))).toMatchObject({
      code: 0,
      stdout: 'agent shop-notes: no changes (the server already matches the definitions)\n',
    });
    const service = (await (await fetch(`${empty.url}/services/notes`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as {
      url: string;
      auth?: unknown;
      tools: { name: string }[];
    };
    expect(service).toMatchObject({ url: `stdio:${encodeURIComponent(process.execPath)}`, auth: { scheme: 'env' } });
    expect(service.tools.map((t) => t.name)).toContain('read_graph');

    const exported = await tenet(['export', 'shop-notes'], onEmpty());
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`tool_services:\n  - name: notes\n    kind: mcp\n    command: ${process.execPath}\n`);
    expect(exported.stderr).toContain('warning: tool service notes: a stdio MCP server; the API does not return its args');
    expect(exported.stderr).toContain(
      'warning: tool service notes: has an environment for its command on the server (sealed), not exported',
    );

    writeFileSync(file, yaml.replace(/ {4}env: .*\n/, '').replace(`command: ${process.execPath}`, `command: ${process.execPath}-other`));
    const refused = await tenet(['apply', '-f', file], onEmpty());
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(
      `refused (nothing was written):\n  ${file}:11: tool_services.0: tool service notes has credentials on the server that the file does not give; re-registering it would drop them: add env with each value as { env: NAME } (the stdio server's environment)\n`,
    );
  });

  it('every kind of resource (agent settings and budget, variables, canned responses, capabilities, terms, intents) applies idempotently and updates field by field', async () => {
    const file = join(dir, 'every-kind.yaml');
    const yaml = readFileSync(join(root, 'test/e2e/fixtures/cli-every-kind.yaml'), 'utf8');
    writeFileSync(file, yaml);
    const created = await tenet(['apply', '-f', file], onEmpty());
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain('agent every-kind: 8 change(s)');
    expect((await tenet(['apply', '-f', file], onEmpty())).stdout).toBe(
      'agent every-kind: no changes (the server already matches the definitions)\n',
    );
    const edited = yaml
      .replace('criticality: high', 'criticality: low')
      .replace('tokens: 100000', 'tokens: 5000')
      .replace('synonyms: [article number]', 'synonyms: [item number]')
      .replace("pattern: '^[0-9]+$' } }", () => "pattern: '^[0-9]{4,10}$' } }")
      .replace('    required: true\n', '');
    writeFileSync(file, edited);
    const diff = await tenet(['diff', '-f', file], onEmpty());
    expect(diff.stderr).toBe('');
    expect(diff.stdout).toContain('~ context_variables every-order\n    required: true → (default)\n');
    expect(diff.stdout).toContain('~ intents every-intent\n    parameters.properties.order_id.pattern: "^[0-9]+$" → "^[0-9]{4,10}$"\n');
    const updated = await tenet(['apply', '-f', file], onEmpty());
    expect(updated.stdout).toBe(
      'agent every-kind: 5 change(s)\n  updated agent every-kind\n  updated context_variables every-order\n  updated guidelines every-g1\n  updated intents every-intent\n  updated terms every-term\n',
    );
    expect((await tenet(['diff', '-f', file, '--exit-code'], onEmpty())).code).toBe(0);
    const intent = (await (
      await fetch(`${empty.url}/intents/every-intent`, { headers: { authorization: `Bearer ${adminKey}` } })
    ).json()) as Record<string, unknown>;
    expect(intent).toMatchObject({
      name: 'track_order',
      tags: ['agent:every-kind'],
      parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4,10}$' } } },
    });
    const variable = (await (
      await fetch(`${empty.url}/context-variables/every-order`, { headers: { authorization: `Bearer ${adminKey}` } })
    ).json()) as { context_variable: Record<string, unknown> };
    expect(variable.context_variable['required']).toBe(false);
  });

  it('--prune deletes what the files no longer name; without it apply keeps and lists them', async () => {
    const file = join(dir, 'prune.yaml');
    const withBoth =
      'version: 1\nagent:\n  id: shop-prune\n  name: Shop\nguidelines:\n  - id: prune-keep\n    condition: The customer says hello\n    action: Greet them\n  - id: prune-drop\n    condition: The customer says bye\n    action: Say goodbye\n';
    writeFileSync(file, withBoth);
    expect((await tenet(['apply', '-f', file], onEmpty())).code).toBe(0);
    writeFileSync(file, withBoth.replace(/ {2}- id: prune-drop[\s\S]*$/, ''));
    const kept = await tenet(['apply', '-f', file], onEmpty());
    expect(kept.stdout).toContain('not in the files (kept; --prune deletes them): guidelines prune-drop');
    const pruned = await tenet(['apply', '-f', file, '--prune'], onEmpty());
    expect(pruned).toMatchObject({ code: 0, stdout: 'agent shop-prune: 1 change(s)\n  deleted guidelines prune-drop\n' });
    expect((await fetch(`${empty.url}/guidelines/prune-drop`, { headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(404);
  });

  it('says what is wrong with the connection: unreachable server, missing or wrong key (401), a role that may not (403), another workspace', async () => {
    const file = join(root, 'examples/demo-agent');
    const unreachable = await tenet(
      ['diff', '-f', file],
      cliEnv(`http://127.0.0.1:${await freePort()}`, { TENET_DEMO_ORDERS_URL: 'http://x', TENET_DEMO_ORDERS_SOURCE: 'http://x' }),
    );
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(
      /^error: cannot reach Tenet at http:\/\/127\.0\.0\.1:\d+ \(.+\); is the server running\? Set TENET_URL or --url to its address\.\n$/,
    );

    const noKey = await tenet(['export', 'demo-support'], cliEnv(empty.url));
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toContain(
      '(401 unauthenticated: an API key or session token is required: Authorization: Bearer <key>). Set TENET_API_KEY to an API key (tnt_…).',
    );
    const wrongKey = await tenet(['export', 'demo-support'], cliEnv(empty.url, { TENET_API_KEY: 'tnt_nope_nope' }));
    expect(wrongKey.code).toBe(3);
    expect(wrongKey.stderr).toContain('TENET_API_KEY is wrong, revoked or expired.');

    const created = (await (
      await fetch(`${empty.url}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
        body: JSON.stringify({ name: 'reader', role: 'read-only' }),
      })
    ).json()) as { key: string };
    writeFileSync(join(dir, 'reader.yaml'), 'version: 1\nagent:\n  id: shop-reader\n  name: Shop\n');
    const readOnly = await tenet(['apply', '-f', join(dir, 'reader.yaml')], cliEnv(empty.url, { TENET_API_KEY: created.key }));
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).toMatch(
      /^error: the API key may not POST \/agents \(403 forbidden: .+\); it needs a role that may \(admin for definitions\)\.\n$/,
    );

    const otherWorkspace = await tenet(['--workspace', 'acme', 'apply', '-f', join(dir, 'prune.yaml')], onEmpty());
    expect(otherWorkspace.code).toBe(3);
    expect(otherWorkspace.stderr).toBe(
      'error: the API key belongs to workspace default, not acme; set TENET_API_KEY_ACME or TENET_API_KEY to a key of acme.\n',
    );
  });

  it('has --help for every command and a completion script naming them and their options', async () => {
    const completion = await tenet(['completion', 'bash'], cliEnv(empty.url));
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('complete -o filenames -F _tenet_complete tenet');
    expect(completion.stdout).toContain('apply) opts="--file -f --prune --dry-run --help"');
    // `npx tenet` (the README's command) runs the package's bin.
    const npx = await new Promise<string>((resolve) =>
      execFile('npx', ['--no-install', 'tenet', '--help'], { cwd: root, env: cliEnv(empty.url) }, (_error, stdout) => resolve(stdout)),
    );
    expect(npx).toContain('Usage: tenet [options] [command]');
    const commands = ['apply', 'diff', 'export', 'chat', 'test', 'replay', 'schema', 'completion'];
    for (const command of commands) {
      expect(completion.stdout).toContain(`${command}) opts=`);
      expect(npx).toMatch(new RegExp(`\\n  ${command} `));
    }
    // Each command's own help (spawns cost seconds of CPU: a sample of them, with their options).
    const helps = await Promise.all(['apply', 'test', 'replay'].map((command) => tenet([command, '--help'], cliEnv(empty.url))));
    expect(helps.map((h) => h.code)).toEqual([0, 0, 0]);
    expect(helps[0]?.stdout).toContain('Usage: tenet apply [options]');
    expect(helps[0]?.stdout).toContain('--prune');
    expect(helps[1]?.stdout).toContain('Usage: tenet test [options] <path>');
    expect(helps[1]?.stdout).toContain('--repeat <n>');
    expect(helps[2]?.stdout).toContain('Usage: tenet replay [options]');
    expect(helps[2]?.stdout).toContain('--sessions <filter>');
  });
});
