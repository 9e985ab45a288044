/**
 * The compiled build (`npm run build`) runs from dist/ alone — the image copies nothing else — so every
 * file the demo agent loads at start-up must be one of apps/tenet's build assets (a missing one left the compiled
 * all-in-one and start:distributed without the demo's policy document).
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const project = JSON.parse(readFileSync(join(root, 'apps/tenet/project.json'), 'utf8')) as {
  targets: { build: { options: { command: string }; inputs: string[] } };
};
const command = project.targets.build.options.command;
const assets = command.split('--assets')[1]?.trim().split(/\s+/) ?? [];

/** Every `"file": "…"` the demo agent names, relative to examples/. */
const demoFiles = (): string[] =>
  [...readFileSync(join(root, 'examples/demo-agent.json'), 'utf8').matchAll(/"file"\s*:\s*"([^"]+)"/g)].map((m) => join('examples', m[1]!));

describe('apps/tenet build assets', () => {
  it('ship the demo agent and every file it loads, and rebuild when one changes', () => {
    const needed = ['examples/demo-agent.json', ...demoFiles()];
    expect(needed.length).toBeGreaterThan(1);
    for (const file of needed) {
      expect(existsSync(join(root, file))).toBe(true);
      expect(assets).toContain(file);
      expect(project.targets.build.inputs).toContain(`{workspaceRoot}/${file}`);
    }
  });
});
