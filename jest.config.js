// Native ESM Jest: NestJS 12 is ESM-only, so tests run as ES modules transformed by SWC
// (decorator metadata on, module type es6). Run through `npm test`, which sets --experimental-vm-modules.
import { readFileSync } from 'node:fs';

const { compilerOptions } = JSON.parse(readFileSync(new URL('./tsconfig.base.json', import.meta.url), 'utf8'));

const aliasMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace(/[/.]/g, (c) => `\\${c}`)}$`,
    `<rootDir>/${target.replace(/^\.\//, '')}`,
  ]),
);

const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      // Like tsconfig: optional DTO fields must not become own `undefined` properties that overwrite defaults.
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const tier = (name) => ({
  displayName: name,
  rootDir: import.meta.dirname,
  testEnvironment: 'node',
  // dist/ (npm run build) holds a copy of package.json and compiled files that are not tests.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testMatch: [`<rootDir>/{apps,libs,test}/**/*.${name}.spec.ts`],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { ...aliasMapper, '^(\\.{1,2}/.*)\\.js$': '$1' },
  // Jest ignores testTimeout per project, so the int and e2e tiers raise it in a setup file.
  setupFilesAfterEnv: name === 'unit' ? [] : [`<rootDir>/libs/testing/setup/${name}-timeout.ts`],
});

export default {
  projects: [tier('unit'), tier('int'), tier('e2e')],
  // The run must leave no stream or key behind on the shared NATS/Redis (fails under CI; libs/testing/setup/leftovers.mjs).
  globalSetup: '<rootDir>/libs/testing/setup/leftovers-setup.mjs',
  globalTeardown: '<rootDir>/libs/testing/setup/leftovers-teardown.mjs',
  verbose: true,
};
