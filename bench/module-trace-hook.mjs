/**
 * Preloaded by bench/module-trace.mjs (`node --import ./bench/module-trace-hook.mjs …`): records every module the
 * process loads (a `module.registerHooks` load hook, ESM and CommonJS alike) and, on SIGUSR2, writes one line per
 * module (its URL and the URL of the module that first imported it) to TENET_MODULE_TRACE_OUT. The process keeps running; the runner stops it.
 */
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

/** url → the module that first imported it (for `--why`). */
const loaded = new Map();
const parents = new Map();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (!parents.has(resolved.url)) parents.set(resolved.url, context.parentURL ?? '');
    return resolved;
  },
  load(url, context, nextLoad) {
    loaded.set(url, parents.get(url) ?? '');
    return nextLoad(url, context);
  },
});
process.on('SIGUSR2', () =>
  writeFileSync(process.env.TENET_MODULE_TRACE_OUT, [...loaded].map(([url, parent]) => `${url} ${parent}`).join('\n')),
);
