import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  credentialNotes,
  DefinitionError,
  definitionFromResources,
  planChanges,
  renderDefinition,
  renderPlan,
  type Resource,
} from '@tenet/cli-domain';
import { loadDefinitions } from './definition-files.js';

const SECRET = 'pk-live-0123456789abcdef-WXYZ';

const file = (auth: string) => `version: 1
agent:
  id: pets
  name: Pets
tool_services:
  - name: petstore
    kind: openapi
    url: https://pets.example.com
    source: https://pets.example.com/openapi.json
${auth}`;

const API_KEY_AUTH = `    auth:
      scheme: api_key
      in: header
      name: api_key
      value: { env: PETS_API_KEY }
`;

/** The server's view of the service: its credentials as GET /services/{name} shows them (scheme and hint only). */
const server = (auth?: { scheme: string; secret_hint?: string }): Resource[] => [
  { kind: 'agent', key: 'pets', entry: { id: 'pets', name: 'Pets' } },
  {
    kind: 'tool_services',
    key: 'petstore',
    entry: { name: 'petstore', kind: 'openapi', url: 'https://pets.example.com', ...(auth ? { auth } : {}) },
  },
];

/**
 * Tool-service credentials in definition files are environment references; apply sends the values,
 * diff compares what the server can show (scheme and the secret's last 4 characters), export never writes them.
 */
describe('tool-service credentials in definition files', () => {
  let dir: string;
  const load = (text: string, env: NodeJS.ProcessEnv) => {
    writeFileSync(join(dir, 'pets.yaml'), text);
    const [definition] = loadDefinitions(join(dir, 'pets.yaml'), env);
    return definition!;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-cli-auth-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('apply sends the secret read from the environment; the planned resource holds only the scheme and hint', () => {
    const definition = load(file(API_KEY_AUTH), { PETS_API_KEY: SECRET });
    expect(definition.inputs.services.get('petstore')).toEqual({
      kind: 'openapi',
      openapi: { url: 'https://pets.example.com', source: 'https://pets.example.com/openapi.json' },
      auth: { scheme: 'api_key', in: 'header', name: 'api_key', value: SECRET },
    });
    const service = definition.resources.find((r) => r.kind === 'tool_services');
    expect(service?.entry['auth']).toEqual({ scheme: 'api_key', secret_hint: '…WXYZ' });
    expect(JSON.stringify(definition.resources)).not.toContain(SECRET);
  });

  it('a secret written inline is refused at its line: the file only names variables', () => {
    expect(() => load(file(API_KEY_AUTH.replace('{ env: PETS_API_KEY }', SECRET)), {})).toThrow(DefinitionError);
    try {
      load(file(API_KEY_AUTH.replace('{ env: PETS_API_KEY }', SECRET)), {});
    } catch (error) {
      expect(JSON.stringify((error as DefinitionError).problems)).toMatch(/tool_services\.0\.auth/);
    }
  });

  it('diff: the same secret is no change, a rotated one says credentials are replaced (hints only), none on the server says they will be set', () => {
    const definition = load(file(API_KEY_AUTH), { PETS_API_KEY: SECRET });
    expect(planChanges(definition.resources, server({ scheme: 'api_key', secret_hint: '…WXYZ' }), { prune: false }).changes).toEqual([]);
    const rotated = renderPlan(planChanges(definition.resources, server({ scheme: 'api_key', secret_hint: '…OLD1' }), { prune: false }));
    expect(rotated).toContain('auth: credentials set (api_key, secret …OLD1) will be replaced (api_key, secret …WXYZ)');
    expect(renderPlan(planChanges(definition.resources, server(), { prune: false }))).toContain(
      'auth: credentials will be set (api_key, secret …WXYZ)',
    );
    expect(rotated).not.toContain(SECRET);
  });

  it("diff: a secret whose variable is unset here is taken as the server's (no change); apply reports the variable when it must register the service", () => {
    const definition = load(file(API_KEY_AUTH), {});
    expect(planChanges(definition.resources, server({ scheme: 'api_key', secret_hint: '…WXYZ' }), { prune: false }).changes).toEqual([]);
    expect(definition.deferred.get('petstore')?.message).toBe(
      'environment variable PETS_API_KEY is not set (it holds a credential of tool service petstore)',
    );
    expect(definition.deferred.get('petstore')?.path).toBe('tool_services.0.auth.value');
  });

  it("a file without auth leaves the server's credentials alone; export writes none and says so", () => {
    const definition = load(file(''), {});
    expect(planChanges(definition.resources, server({ scheme: 'bearer', secret_hint: '…abcd' }), { prune: false }).changes).toEqual([]);
    const exported = renderDefinition(definitionFromResources(server({ scheme: 'bearer', secret_hint: '…abcd' }), new Map()));
    expect(exported).not.toMatch(/auth|abcd/);
    expect(credentialNotes(server({ scheme: 'bearer', secret_hint: '…abcd' }))).toEqual([
      expect.stringMatching(/^tool service petstore: has bearer credentials on the server \(secret …abcd\), not exported/),
    ]);
  });

  it('every scheme: secrets and headers from the environment', () => {
    const env = {
      TOKEN: 'a-bearer-token-long-enough-1234',
      PASSWORD: 'p4ss',
      CLIENT_SECRET: 'client-secret-0000',
      USERNAME: 'ann',
      CRM: 'crm-key',
    };
    const auths: [string, Record<string, unknown>, { scheme: string; secret_hint?: string }][] = [
      [
        '    auth: { scheme: bearer, token: { env: TOKEN } }\n',
        { scheme: 'bearer', token: env.TOKEN },
        { scheme: 'bearer', secret_hint: '…1234' },
      ],
      [
        '    auth: { scheme: basic, username: { env: USERNAME }, password: { env: PASSWORD } }\n',
        { scheme: 'basic', username: 'ann', password: 'p4ss' },
        { scheme: 'basic', secret_hint: '…' },
      ],
      [
        '    auth: { scheme: oauth2_client_credentials, token_url: https://auth.example.com/token, client_id: tenet, client_secret: { env: CLIENT_SECRET }, scope: read }\n',
        {
          scheme: 'oauth2_client_credentials',
          token_url: 'https://auth.example.com/token',
          client_id: 'tenet',
          client_secret: env.CLIENT_SECRET,
          scope: 'read',
        },
        { scheme: 'oauth2_client_credentials', secret_hint: '…0000' },
      ],
      [
        '    auth: { scheme: headers, headers: { X-Crm-Key: { env: CRM } } }\n',
        { scheme: 'headers', headers: { 'X-Crm-Key': 'crm-key' } },
        { scheme: 'headers' },
      ],
    ];
    for (const [yaml, body, shown] of auths) {
      const definition = load(file(yaml), env);
      expect(definition.inputs.services.get('petstore')?.['auth']).toEqual(body);
      expect(definition.resources.find((r) => r.kind === 'tool_services')?.entry['auth']).toEqual(shown);
    }
  });

  describe('an MCP server run over stdio (command, args, env)', () => {
    const STDIO = `version: 1
agent:
  id: pets
  name: Pets
tool_services:
  - name: notes
    kind: mcp
    command: npx
    args: [-y, '@modelcontextprotocol/server-memory']
    env: { MEMORY_FILE_PATH: { env: NOTES_FILE }, NOTES_TOKEN: { env: NOTES_TOKEN } }
`;
    const problemsOf = (text: string): string[] => {
      try {
        load(text, {});
      } catch (error) {
        return (error as DefinitionError).problems.map((p) => `${p.line}: ${p.path}: ${p.message}`);
      }
      return [];
    };

    it("registers the command with its args and its environment read from apply's; the plan compares it as the server shows it", () => {
      const definition = load(STDIO, { NOTES_FILE: '/var/notes.jsonl', NOTES_TOKEN: SECRET });
      expect(definition.inputs.services.get('notes')).toEqual({
        kind: 'mcp',
        mcp: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: '/var/notes.jsonl', NOTES_TOKEN: SECRET },
        },
      });
      const service = definition.resources.find((r) => r.kind === 'tool_services');
      expect(service?.entry).toEqual({ name: 'notes', kind: 'mcp', url: 'stdio:npx', auth: { scheme: 'env' } });
      expect(JSON.stringify(definition.resources)).not.toContain(SECRET);
      // GET /services/notes: `stdio:<command>` and its sealed env as credentials of scheme env.
      const shown: Resource[] = [
        server()[0]!,
        { kind: 'tool_services', key: 'notes', entry: { name: 'notes', kind: 'mcp', url: 'stdio:npx', auth: { scheme: 'env' } } },
      ];
      expect(planChanges(definition.resources, shown, { prune: false }).changes).toEqual([]);
      expect(planChanges(load(STDIO.replace(/ {4}env: .*\n/, ''), {}).resources, shown, { prune: false }).changes).toEqual([]);
      expect(
        renderPlan(planChanges(load(STDIO.replace('command: npx', 'command: node'), {}).resources, shown, { prune: false })),
      ).toContain('url: "stdio:npx" → "stdio:node"');
      expect(load(STDIO, {}).deferred.get('notes')?.path).toBe('tool_services.0.env.NOTES_TOKEN');
    });

    it('refuses an inline environment value and the combinations the server refuses, each at its line', () => {
      expect(problemsOf(STDIO.replace('{ env: NOTES_TOKEN }', SECRET))).toEqual([
        expect.stringMatching(/^10: tool_services\.0\.env\.NOTES_TOKEN: /),
      ]);
      expect(problemsOf(STDIO.replace('kind: mcp', 'kind: sdk'))).toEqual([
        '8: tool_services.0.command: command (a stdio MCP server) is for kind mcp only',
      ]);
      expect(problemsOf(STDIO.replace('    command: npx\n', '    command: npx\n    url: https://notes.example.com\n'))).toEqual([
        '9: tool_services.0.url: give either url (an HTTP server) or command (a stdio MCP server), not both',
      ]);
      expect(problemsOf(STDIO.replace('    command: npx\n', ''))).toEqual([
        '6: tool_services.0: url is required (or command, for a stdio MCP server)',
        '8: tool_services.0.args: args is for a stdio MCP server (with command)',
        '9: tool_services.0.env: env is for a stdio MCP server (with command)',
      ]);
    });

    it('export writes the command and says what the API does not return (args, the sealed env)', () => {
      const shown: Resource[] = [
        server()[0]!,
        {
          kind: 'tool_services',
          key: 'notes',
          entry: { name: 'notes', kind: 'mcp', url: `stdio:${encodeURIComponent('/usr/bin/node')}`, auth: { scheme: 'env' } },
        },
      ];
      expect(renderDefinition(definitionFromResources(shown, new Map()))).toContain(
        'tool_services:\n  - name: notes\n    kind: mcp\n    command: /usr/bin/node\n',
      );
      expect(credentialNotes(shown)).toEqual([
        expect.stringContaining('the API does not return its args'),
        expect.stringContaining('has an environment for its command on the server (sealed), not exported'),
      ]);
    });
  });
});
