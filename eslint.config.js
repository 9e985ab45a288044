import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const boundaries = (testCode) => [
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
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: testCode ? ['type:contracts', 'type:testing'] : ['type:contracts'], bannedExternalImports: infrastructure },
      { sourceTag: 'type:adapter', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      // Feature libs hold a service's use cases (controllers, handlers) so that both its own app and the
      // all-in-one host can compose them; apps are wiring only.
      { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      // Hosts compose feature modules into runnable processes (all-in-one, or one service) for apps and tests.
      { sourceTag: 'type:host', onlyDependOnLibsWithTags: ['type:feature', 'type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:host', 'type:feature', 'type:adapter', 'type:contracts', 'type:domain', 'type:testing'] },
    ],
  },
];

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
    },
  },
  {
    // Domain code takes time, ids and randomness as input; Node built-ins would smuggle in I/O and clocks.
    files: ['libs/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'child_process', 'os', 'timers'], message: 'Domain libs are pure: pass I/O, time and ids in as input.' }] },
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
);
