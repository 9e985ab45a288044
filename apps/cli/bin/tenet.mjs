#!/usr/bin/env node
// The `tenet` bin (`npx tenet …`): runs the CLI's TypeScript sources through swc, resolving the @tenet/* aliases
// with this repository's tsconfig, wherever the command is started from.
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';

process.env.SWC_NODE_PROJECT ??= fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
register('@swc-node/register/esm', import.meta.url);
await import('../src/main.ts');
