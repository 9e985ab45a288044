/**
 * Every way Tenet is started runs its processes with the same V8 heap flags (ADR 0035): the repository's start
 * scripts, the compiled tree's (scripts/build.mjs derives them), and the image, whose NODE_OPTIONS reaches whatever
 * command the container runs (docker compose and the k8s manifests run that image). start:distributed passes the
 * launcher's own flags on to the services it starts (scripts/start-distributed.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const heapFlags = (command: string): string[] => command.split(/\s+/).filter((word) => /^--max-(semi|old)-space-size=/.test(word));

describe('node heap flags', () => {
  const expected = heapFlags(scripts['start:prod']!);

  it('are set by the production start script', () => {
    expect(expected).toEqual(['--max-semi-space-size=8']);
  });

  it('are the same in every start script', () => {
    for (const name of ['start', 'start:distributed', 'start:prod', 'start:distributed:prod'])
      expect(heapFlags(scripts[name]!)).toEqual(expected);
  });

  it('are the image NODE_OPTIONS', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const options = /^\s*NODE_OPTIONS=(\S+)/m.exec(runtime)?.[1];
    expect(heapFlags(options ?? '')).toEqual(expected);
  });
});
