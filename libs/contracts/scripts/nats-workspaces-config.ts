import { renderNatsWorkspaceConfig } from '../src/workspaces/nats-permissions.js';

/**
 * Prints a nats-server configuration with one user per workspace (docs/nats-workspaces.md):
 *   npm run nats:workspaces -- acme globex [--namespace prod] [--services-user tenet]
 */
const args = process.argv.slice(2);
const workspaces: string[] = [];
let namespace: string | undefined;
let servicesUser: string | undefined;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--namespace') namespace = args[++i];
  else if (arg === '--services-user') servicesUser = args[++i];
  else if (arg !== undefined) workspaces.push(arg);
}
if (workspaces.length === 0) {
  process.stderr.write('usage: npm run nats:workspaces -- <workspace>... [--namespace <ns>] [--services-user <user>]\n');
  process.exit(2);
}
process.stdout.write(
  renderNatsWorkspaceConfig({ workspaces, ...(namespace ? { namespace } : {}), ...(servicesUser ? { servicesUser } : {}) }),
);
