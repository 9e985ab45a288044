import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const boundaries = (testCode, scopeRules = scopeConstraints) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      // Domain libs are pure TypeScript: no framework, no I/O client, nothing but other domain code
      // (their specs may also use the given/when/then helpers in libs/testing).
      {
        sourceTag: 'type:domain',
        onlyDependOnLibsWithTags: testCode ? ['type:domain', 'type:testing'] : ['type:domain'],
        bannedExternalImports: infrastructure,
      },
      // Contracts are the public integration surface: they never import domain or adapter code.
      {
        sourceTag: 'type:contracts',
        onlyDependOnLibsWithTags: testCode ? ['type:contracts', 'type:testing'] : ['type:contracts'],
        bannedExternalImports: infrastructure,
      },
      { sourceTag: 'type:adapter', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      // Feature libs hold a service's use cases (controllers, handlers) so that both its own app and the
      // all-in-one host can compose them; apps are wiring only.
      { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      // Hosts compose feature modules into runnable processes (all-in-one, or one service) for apps and tests.
      {
        sourceTag: 'type:host',
        onlyDependOnLibsWithTags: ['type:feature', 'type:adapter', 'type:contracts', 'type:domain', 'type:testing'],
      },
      {
        sourceTag: 'type:app',
        onlyDependOnLibsWithTags: ['type:host', 'type:feature', 'type:adapter', 'type:contracts', 'type:domain', 'type:testing'],
      },
      ...scopeRules,
    ],
  },
];

/**
 * Which contexts a project's code may reach (ADR 0027), on top of the type rules above (which already keep a
 * feature lib from importing another feature lib). The platform is infrastructure for every context and knows
 * none of them; a context reaches its own libs, the shared contracts and testing, the platform, and — listed
 * here, each for a reason — the HTTP edge, the catalog's storage and other contexts' pure domain rules.
 * Hosts and the all-in-one app compose everything and have no scope rule.
 */
const base = ['scope:shared', 'scope:platform'];
const scopes = {
  'scope:shared': ['scope:shared'],
  'scope:platform': base,
  // Workspaces hold a budget: the edge validates it with metering's domain rules.
  'scope:edge': [...base, 'scope:edge', 'scope:metering'],
  // Definitions are checked against the rules of the contexts that run them (journeys, matching, metering, memory,
  // tools, the session's failure reply, the agent's intent settings); the type rules keep the catalog from the session gateway itself.
  'scope:catalog': [
    ...base,
    'scope:catalog',
    'scope:edge',
    'scope:intents',
    'scope:journeys',
    'scope:matching',
    'scope:metering',
    'scope:memory',
    'scope:tools',
    'scope:session',
  ],
  // The session gateway orchestrates the turn: it reads definitions and applies other contexts' domain rules.
  'scope:session': [
    ...base,
    'scope:session',
    'scope:edge',
    'scope:catalog',
    'scope:metering',
    'scope:journeys',
    'scope:matching',
    'scope:memory',
    'scope:tools',
  ],
  // Budgets and usage are per agent and workspace: metering's HTTP side reads both.
  'scope:metering': [...base, 'scope:metering', 'scope:edge', 'scope:catalog', 'scope:hosts'],
  // The matcher meters its own LLM calls (price table, budget charges).
  'scope:matching': [...base, 'scope:matching', 'scope:metering'],
  'scope:journeys': [...base, 'scope:journeys'],
  // Intents are classified by the matcher over the bus (contracts) and reported through a token: no context import.
  'scope:intents': [...base, 'scope:intents'],
  // Recall's embeddings are priced and metered like every LLM call.
  'scope:memory': [...base, 'scope:memory', 'scope:edge', 'scope:hosts', 'scope:metering'],
  'scope:tools': [...base, 'scope:tools', 'scope:hosts'],
  'scope:channels': [...base, 'scope:channels', 'scope:edge', 'scope:hosts'],
  // The CLI checks definition files offline with the contexts' own domain rules.
  'scope:cli': [...base, 'scope:cli', 'scope:intents', 'scope:journeys', 'scope:matching', 'scope:metering', 'scope:session'],
  // Apps of one service: wiring of their host, the edge and the platform.
  'scope:guideline-matcher': [...base, 'scope:hosts', 'scope:matching'],
  'scope:journey-engine': [...base, 'scope:hosts', 'scope:journeys'],
  'scope:session-gateway': [...base, 'scope:hosts', 'scope:session', 'scope:edge'],
};
const constraintsOf = (rules) =>
  Object.entries(rules).map(([sourceTag, onlyDependOnLibsWithTags]) => ({ sourceTag, onlyDependOnLibsWithTags }));
const scopeConstraints = constraintsOf(scopes);
// A service's turn client (`libs/<context>/client`, ADR 0027) is the session turn's side of that service: what the
// turn asks of it and what it records. Only these libs reach further than their service: they read the definitions
// the turn runs (the catalog's storage: journeys, context variables, the tool-runner port), the edge (workspaces,
// ids) and the session's turn workflow; the journeys' client also leaves journey conditions out of the ranking with
// the matcher's rule. The services themselves keep the narrow rules above.
const turnClientScopes = constraintsOf({
  ...scopes,
  'scope:journeys': [...scopes['scope:journeys'], 'scope:catalog', 'scope:edge', 'scope:matching'],
  'scope:memory': [...scopes['scope:memory'], 'scope:catalog', 'scope:session'],
  'scope:tools': [...scopes['scope:tools'], 'scope:catalog', 'scope:edge', 'scope:session'],
});

const infrastructure = ['@nestjs/*', 'mongoose', 'mongodb', '@nats-io/*', 'nats', 'bullmq', 'ioredis', 'better-sqlite3', 'express'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'tmp/**', '.nx/**', 'coverage/**', '.tenet-data/**', '**/*.js', '**/*.mjs'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries(false),
      // Lint fails on errors only (`npm run lint`); this is the one rule that warns.
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
  {
    // Long functions are reported, not refused: a warning in every lint run points at what to split next (the turn
    // became a decider and a runner this way, ADR 0028). Tests and benches are scripts of steps and are exempt.
    files: ['libs/**/*.ts', 'apps/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/**/testing/**/*.ts', 'libs/testing/**/*.ts'],
    rules: { 'max-lines-per-function': ['warn', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    // class-validator's entry point loads every rule with validator and libphonenumber-js (~18 MB per HTTP process):
    // its values come from @tenet/platform-runtime/validation (validation-rules.ts), one module per rule (ADR 0035).
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/platform/runtime/src/validation-rules.ts', 'libs/edge/src/openapi/serve-openapi.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              allowTypeImports: true,
              message:
                "Import class-validator's rules from @tenet/platform-runtime/validation (validation-rules.ts): its entry point loads them all.",
            },
            {
              name: 'class-validator-jsonschema',
              allowTypeImports: true,
              message:
                'Import JSONSchema from @tenet/platform-runtime/validation (validation-rules.ts): the entry point loads all of class-validator.',
            },
          ],
        },
      ],
    },
  },
  {
    // Domain code takes time, ids and randomness as input; Node built-ins would smuggle in I/O and clocks.
    files: ['libs/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'child_process', 'os', 'timers'],
              message: 'Domain libs are pure: pass I/O, time and ids in as input.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'Date', message: 'Take the time from metadata or a Clock port.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Take randomness as input.' }],
    },
  },
  {
    files: ['**/*.spec.ts', 'bench/**/*.ts', 'libs/**/testing/**/*.ts', 'libs/testing/**/*.ts', 'test/**/support/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.spec.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(true) },
  },
  {
    files: ['libs/*/client/src/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(false, turnClientScopes) },
  },
  {
    files: ['libs/*/client/src/**/*.spec.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(true, turnClientScopes) },
  },
);
