import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialNotes, DefinitionError, definitionFromResources, planChanges, renderDefinition, renderPlan, type Resource } from '@tenet/cli-domain';
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
  { kind: 'tool_services', key: 'petstore', entry: { name: 'petstore', kind: 'openapi', url: 'https://pets.example.com', ...(auth ? { auth } : {}) } },
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
    expect(definition.inputs.services.get('petstore')).toEqual({ kind: 'openapi', openapi: { url: 'https://pets.example.com', source: 'https://pets.example.com/openapi.json' }, auth: { scheme: 'api_key', in: 'header', name: 'api_key', value: SECRET } });
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
    expect(renderPlan(planChanges(definition.resources, server(), { prune: false }))).toContain('auth: credentials will be set (api_key, secret …WXYZ)');
    expect(rotated).not.toContain(SECRET);
  });

  it('diff: a secret whose variable is unset here is taken as the server\'s (no change); apply reports the variable when it must register the service', () => {
    const definition = load(file(API_KEY_AUTH), {});
    expect(planChanges(definition.resources, server({ scheme: 'api_key', secret_hint: '…WXYZ' }), { prune: false }).changes).toEqual([]);
    expect(definition.deferred.get('petstore')?.message).toBe('environment variable PETS_API_KEY is not set (it holds a credential of tool service petstore)');
    expect(definition.deferred.get('petstore')?.path).toBe('tool_services.0.auth.value');
  });

  it('a file without auth leaves the server\'s credentials alone; export writes none and says so', () => {
    const definition = load(file(''), {});
    expect(planChanges(definition.resources, server({ scheme: 'bearer', secret_hint: '…abcd' }), { prune: false }).changes).toEqual([]);
    const exported = renderDefinition(definitionFromResources(server({ scheme: 'bearer', secret_hint: '…abcd' }), new Map()));
    expect(exported).not.toMatch(/auth|abcd/);
    expect(credentialNotes(server({ scheme: 'bearer', secret_hint: '…abcd' }))).toEqual([expect.stringMatching(/^tool service petstore: has bearer credentials on the server \(secret …abcd\), not exported/)]);
  });

  it('every scheme: secrets and headers from the environment', () => {
    const env = { TOKEN: 'a-bearer-token-long-enough-1234', PASSWORD: 'p4ss', CLIENT_SECRET: 'client-secret-0000', USERNAME: 'ann', CRM: 'crm-key' };
    const auths: [string, Record<string, unknown>, { scheme: string; secret_hint?: string }][] = [
      ['    auth: { scheme: bearer, token: { env: TOKEN } }\n', { scheme: 'bearer', token: env.TOKEN }, { scheme: 'bearer', secret_hint: '…1234' }],
      ['    auth: { scheme: basic, username: { env: USERNAME }, password: { env: PASSWORD } }\n', { scheme: 'basic', username: 'ann', password: 'p4ss' }, { scheme: 'basic', secret_hint: '…' }],
      ['    auth: { scheme: oauth2_client_credentials, token_url: https://auth.example.com/token, client_id: tenet, client_secret: { env: CLIENT_SECRET }, scope: read }\n', { scheme: 'oauth2_client_credentials', token_url: 'https://auth.example.com/token', client_id: 'tenet', client_secret: env.CLIENT_SECRET, scope: 'read' }, { scheme: 'oauth2_client_credentials', secret_hint: '…0000' }],
      ['    auth: { scheme: headers, headers: { X-Crm-Key: { env: CRM } } }\n', { scheme: 'headers', headers: { 'X-Crm-Key': 'crm-key' } }, { scheme: 'headers' }],
    ];
    for (const [yaml, body, shown] of auths) {
      const definition = load(file(yaml), env);
      expect(definition.inputs.services.get('petstore')?.['auth']).toEqual(body);
      expect(definition.resources.find((r) => r.kind === 'tool_services')?.entry['auth']).toEqual(shown);
    }
  });
});
