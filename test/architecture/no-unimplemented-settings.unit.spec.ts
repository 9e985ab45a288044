import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A stored setting acts or is refused with a rule the caller can meet — never as "not implemented" (docs/reliability.md#settings-every-stored-setting-acts-or-is-refused).
 * This reads every source file of the libs, apps and scripts and fails on the phrase, so a new such refusal
 * cannot land unnoticed.
 */
const root = new URL('../../', import.meta.url).pathname;
const PHRASE = /not\s+(yet\s+)?implemented/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

describe('no "not implemented" in the product', () => {
  it('finds the phrase in no source file of libs/, apps/ or scripts/', () => {
    const files = ['libs', 'apps', 'scripts'].flatMap((dir) => sourceFiles(join(root, dir)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => PHRASE.test(readFileSync(file, 'utf8'))).map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('would catch one', () => {
    expect(PHRASE.test("throw new UnprocessableEntity('config.auto_extract is not implemented')")).toBe(true);
    expect(PHRASE.test('NotImplementedException')).toBe(false);
  });
});
