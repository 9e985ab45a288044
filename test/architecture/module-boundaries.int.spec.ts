import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

/**
 * The boundary rules are only worth something if they fire. This lints real files placed inside a domain
 * lib and a contracts lib and expects the violations to be reported (not skipped for lack of a graph).
 */
const root = new URL('../../', import.meta.url).pathname;

const parse = (json: string): string[] =>
  (JSON.parse(json) as { messages: { ruleId: string; message: string }[] }[]).flatMap((r) =>
    r.messages.map((m) => `${m.ruleId}: ${m.message}`),
  );

async function lintProbe(relativePath: string, source: string): Promise<string[]> {
  const file = `${root}${relativePath}`;
  writeFileSync(file, source);
  try {
    // A child process, as `npm run lint` runs it: ESLint's TypeScript project service keeps handles open in-process.
    const output = execFileSync('npx', ['eslint', '--format', 'json', file], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    return parse(output);
  } catch (error) {
    const output = (error as { stdout?: string }).stdout;
    if (!output) throw error;
    return parse(output); // eslint exits 1 when it reports errors
  } finally {
    rmSync(file, { force: true });
  }
}

beforeAll(() => {
  // The Nx rule reads a cached project graph; compute it so the rule cannot skip itself.
  execFileSync('npx', ['nx', 'show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
}, 120_000);

describe('module boundaries', () => {
  it('a domain lib may not import NestJS, Node built-ins or read the clock', async () => {
    const messages = await lintProbe(
      'libs/session/domain/src/boundary-probe.ts',
      "import { Injectable } from '@nestjs/common';\nimport { randomUUID } from 'node:crypto';\nexport const probe = [Injectable, randomUUID, Date.now()];\n",
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        '@nx/enforce-module-boundaries: A project tagged with "type:domain" is not allowed to import "@nestjs/common"',
        expect.stringMatching(/^no-restricted-imports: .*node:crypto/),
        expect.stringMatching(/^no-restricted-globals: Unexpected use of 'Date'/),
      ]),
    );
  }, 120_000);

  it('contracts may not import an adapter lib', async () => {
    const messages = await lintProbe(
      'libs/contracts/src/boundary-probe.ts',
      "import type { EventStore } from '@tenet/event-store';\nexport type Probe = EventStore;\n",
    );
    expect(messages.join('\n')).toMatch(
      /type:contracts" is not allowed to import .*@tenet\/event-store|can only depend on libs tagged with "type:contracts"/,
    );
  }, 120_000);

  it('a domain file that only imports domain code is clean', async () => {
    const messages = await lintProbe(
      'libs/session/domain/src/boundary-probe.ts',
      "import { decide } from './session-lifecycle.js';\nexport const probe = decide;\n",
    );
    expect(messages).toEqual([]);
  }, 120_000);

  it('the platform may not import a context', async () => {
    const messages = await lintProbe(
      'libs/platform/messaging/src/boundary-probe.ts',
      "import { checkCoherence } from '@tenet/matching-domain';\nexport const probe = checkCoherence;\n",
    );
    expect(messages).toContain(
      '@nx/enforce-module-boundaries: A project tagged with "scope:platform" can only depend on libs tagged with "scope:shared", "scope:platform"',
    );
  }, 120_000);

  it("a context may not import another context's storage or the session gateway", async () => {
    const journeys = await lintProbe(
      'libs/journeys/service/src/boundary-probe.ts',
      "import { JourneysRepository } from '@tenet/catalog-data-access';\nexport const probe = JourneysRepository;\n",
    );
    expect(journeys).toEqual([
      expect.stringMatching(
        /^@nx\/enforce-module-boundaries: A project tagged with "scope:journeys" can only depend on libs tagged with "scope:shared", "scope:platform", "scope:journeys"$/,
      ),
    ]);
    const catalog = await lintProbe(
      'libs/catalog/http/src/boundary-probe.ts',
      "import { SessionGatewayModule } from '@tenet/session-gateway';\nexport const probe = SessionGatewayModule;\n",
    );
    // Nx names the first rule broken: a feature lib may not import another feature lib (nor the catalog the session scope).
    expect(catalog.join('\n')).toMatch(
      /^@nx\/enforce-module-boundaries: A project tagged with "(type:feature|scope:catalog)" can only depend on libs tagged with/,
    );
  }, 120_000);

  it('the catalog may use the edge (an allowed cross-scope import is clean)', async () => {
    const messages = await lintProbe(
      'libs/catalog/data-access/src/boundary-probe.ts',
      "import { newId } from '@tenet/edge';\nexport const probe = newId;\n",
    );
    expect(messages).toEqual([]);
  }, 120_000);
});
