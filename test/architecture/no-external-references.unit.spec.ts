import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A comment cites what a reader of the repository can open: an ADR, docs/data-model.md or another page of docs/ —
 * never a planning document or an issue tracker the repository does not hold ("seed 000 §8", "issue 11 item 7").
 * This reads every source file and README of libs/, apps/ and scripts/ and fails on such a citation, and checks
 * that every `docs/<page>.md#<anchor>` link in the code, the tests, the benchmarks and the root README names a
 * heading that exists, so a renamed section cannot leave dead links behind.
 */
const root = new URL('../../', import.meta.url).pathname;
const EXTERNAL = /\bseeds? (?:0\d\d|§)|\bissues? #?\d+\b/i;
const DOC_LINK = /docs\/([\w.-]+\.md)#([\w-]+)/g;

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every `docs/<page>.md#<anchor>` in `text` whose page or heading does not exist. */
function deadLinks(text: string, anchorsOf: (page: string) => Set<string> | undefined): string[] {
  return [...text.matchAll(DOC_LINK)].filter(([, page, anchor]) => !anchorsOf(page!)?.has(anchor!)).map(([link]) => link);
}

const pages = new Map<string, Set<string> | undefined>();
const anchorsOf = (page: string): Set<string> | undefined => {
  if (!pages.has(page)) {
    const path = join(root, 'docs', page);
    pages.set(page, existsSync(path) ? headingAnchors(readFileSync(path, 'utf8')) : undefined);
  }
  return pages.get(page);
};

describe('comments cite only what the repository holds', () => {
  it('finds no "seed 00N" or "issue N item M" in a source file or README of libs/, apps/ or scripts/', () => {
    const sources = ['libs', 'apps', 'scripts'].flatMap((dir) => files(join(root, dir), /\.(ts|mts|mjs|cjs|js|json|md)$/));
    expect(sources.length).toBeGreaterThan(100);
    const offenders = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (EXTERNAL.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  it('links every docs/<page>.md#<anchor> in the code, tests, benchmarks and README to a heading that exists', () => {
    const self = new URL(import.meta.url).pathname; // its planted dead links below are meant to be dead
    const sources = [
      ...['libs', 'apps', 'scripts', 'bench', 'test'].flatMap((dir) => files(join(root, dir), /\.(ts|mts|mjs|cjs|js|md)$/)),
      join(root, 'README.md'),
    ].filter((file) => file !== self);
    const links = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(DOC_LINK)]);
    expect(links.filter(([, page]) => page === 'data-model.md').length).toBeGreaterThan(50);
    const dead = sources.flatMap((file) =>
      deadLinks(readFileSync(file, 'utf8'), anchorsOf).map((link) => `${relative(root, file)}: ${link}`),
    );
    expect(dead).toEqual([]);
  });

  it('would catch a seed or issue citation, and a dead anchor', () => {
    for (const planted of [
      '// Seed 000 §8 step 2',
      '/** (seed 002 AgentDef.fallback) */',
      '// issue 11 item 20',
      '(Issue 24)',
      '(issue #26)',
      'seed §2 rule 8',
    ]) {
      expect({ planted, caught: EXTERNAL.test(planted) }).toEqual({ planted, caught: true });
    }
    for (const fine of ['seeds the demo agent', 'a random seed 42', 'docs/adr/0031-intents.md', 'issues a request']) {
      expect({ fine, caught: EXTERNAL.test(fine) }).toEqual({ fine, caught: false });
    }
    expect(deadLinks('see docs/data-model.md#matching and docs/data-model.md#no-such-section', anchorsOf)).toEqual([
      'docs/data-model.md#no-such-section',
    ]);
    expect(deadLinks('docs/nowhere.md#matching', anchorsOf)).toEqual(['docs/nowhere.md#matching']);
  });

  it('computes anchors the way GitHub does', () => {
    expect([
      ...headingAnchors(
        '# A\n## Bad input: clients impersonating the agent\n```\n# not a heading\n```\n## Tool audit\n## Tool audit\n### `npm run start:distributed`',
      ),
    ]).toEqual(['a', 'bad-input-clients-impersonating-the-agent', 'tool-audit', 'tool-audit-1', 'npm-run-startdistributed']);
  });
});
