#!/usr/bin/env node
/**
 * Compiles one Nx project (or a single script) from TypeScript to ES modules under dist/, mirroring the source
 * layout, so `dist/apps/<app>/main.js` runs with plain `node` and production dependencies only.
 *
 *   node scripts/build.mjs <projectRoot> [--assets <file>...]   e.g. node scripts/build.mjs apps/tenet --assets examples/demo-agent.json
 *   node scripts/build.mjs --script scripts/start-distributed.ts
 *   node scripts/build.mjs --package                              dist/package.json (+ lock) for `npm ci --omit=dev`
 *
 * swc does the transpiling (decorator metadata, which esbuild lacks and Nest needs); the `@tenet/*` path
 * aliases from tsconfig.base.json are rewritten to relative `.js` imports, which stay valid because dist/
 * mirrors the source tree. An app also gets `dist/apps/<app>/main.js`, a one-line entry importing its
 * `src/main.js`. Spec files are not compiled. Nx caches each project's output (see nx.json targetDefaults).
 */
import { transformFile } from '@swc/core';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');
const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8'));
/** alias → absolute source file, e.g. `@tenet/hosts` → /repo/libs/hosts/src/index.ts */
const aliases = new Map(Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [alias, resolve(root, target)]));

const swcOptions = (filename) => ({
  filename,
  swcrc: false,
  configFile: false,
  sourceMaps: true,
  module: { type: 'es6' },
  jsc: {
    target: 'es2022',
    keepClassNames: true,
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
  },
});

const toJs = (path) => path.replace(/\.ts$/, '.js');
const outPath = (source) => join(dist, toJs(relative(root, source)));

/** Rewrites `@tenet/*` specifiers (static imports, re-exports, dynamic imports) to relative `.js` paths. */
function rewriteAliases(code, source) {
  return code.replace(/(\bfrom\s*|\bimport\s*\(?\s*)(["'])(@tenet\/[^"']+)\2/g, (whole, lead, quote, specifier) => {
    const target = aliases.get(specifier);
    if (!target) throw new Error(`${relative(root, source)}: import "${specifier}" has no path alias in tsconfig.base.json`);
    let rel = relative(dirname(source), target).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${lead}${quote}${toJs(rel)}${quote}`;
  });
}

function sourcesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

async function compile(source) {
  const { code, map } = await transformFile(source, swcOptions(source));
  const target = outPath(source);
  mkdirSync(dirname(target), { recursive: true });
  const name = target.split(sep).pop();
  writeFileSync(target, `${rewriteAliases(code, source)}\n//# sourceMappingURL=${name}.map\n`);
  if (map) writeFileSync(`${target}.map`, map);
}

function copyAsset(file) {
  const target = join(dist, file);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(root, file), target);
}

/**
 * dist/package.json: the root manifest with start scripts for the compiled tree (the root's `start:prod` and
 * `start:distributed:prod`, node flags included, run from inside dist/); the lock file unchanged.
 */
function writePackage() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const fromDist = (script) => manifest.scripts[script].replace(' dist/', ' ');
  manifest.scripts = {
    start: fromDist('start:prod'),
    'start:distributed': fromDist('start:distributed:prod'),
  };
  // The sources' bin runs TypeScript through swc; the compiled tree runs the compiled CLI.
  manifest.bin = { tenet: 'apps/cli/main.js' };
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(root, 'package-lock.json'), join(dist, 'package-lock.json'));
}

const args = process.argv.slice(2);
if (args[0] === '--package') {
  writePackage();
} else if (args[0] === '--script') {
  for (const file of args.slice(1)) await compile(resolve(root, file));
} else {
  const [projectRoot, ...rest] = args;
  if (!projectRoot || !existsSync(join(root, projectRoot, 'src'))) {
    console.error('usage: node scripts/build.mjs <projectRoot> [--assets <file>...] | --script <file.ts>... | --package');
    process.exit(2);
  }
  const sources = sourcesUnder(join(root, projectRoot, 'src'));
  for (const source of sources) await compile(source);
  const assets = rest[0] === '--assets' ? rest.slice(1) : [];
  for (const asset of assets) copyAsset(asset);
  if (existsSync(join(root, projectRoot, 'src', 'main.ts'))) {
    // The shebang lets an app be a package bin (`tenet`: apps/cli); for the others it is a comment to Node.
    writeFileSync(join(dist, projectRoot, 'main.js'), "#!/usr/bin/env node\nimport './src/main.js';\n", { mode: 0o755 });
  }
  console.log(
    `built ${projectRoot}: ${sources.length} file(s)${assets.length ? `, ${assets.length} asset(s)` : ''} → ${relative(root, join(dist, projectRoot))}`,
  );
}
