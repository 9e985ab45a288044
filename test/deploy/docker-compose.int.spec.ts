/**
 * docker-compose.yml without a Docker engine: parsed with YAML merge keys as Compose does, then checked for
 * what a deployment needs — compose v2 syntax, one image built once, compiled entry points that exist, restart
 * policies, the matcher's LLM settings, and no published ports on the backing services. Where a Compose CLI is
 * installed (`docker compose` v2 or Debian's `docker-compose`; `.ci/run` installs the latter) the file also goes
 * through its own `config` validation; without one that check is skipped with the reason printed.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  ports?: string[];
  environment?: Record<string, string>;
  read_only?: boolean;
}
const root = resolve(import.meta.dirname, '../..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  version?: string;
  services: Record<string, ComposeService>;
};
const tenet = Object.entries(compose.services).filter(([, s]) => s.image === 'tenet:local');

/** The Compose CLI on this machine, as argv before the subcommand, or why there is none. */
function composeCli(): { argv: string[] } | { reason: string } {
  const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  if (plugin.status === 0) return { argv: ['docker', 'compose'] };
  const standalone = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
  if (standalone.status === 0) return { argv: ['docker-compose'] };
  return { reason: 'neither `docker compose` nor `docker-compose` is installed (apt-get install docker-compose)' };
}

function composeConfig(
  cli: string[],
  file: string,
  args: string[],
  env: Record<string, string> = USER_ENV,
): { status: number | null; stdout: string; stderr: string } {
  const [command, ...rest] = cli;
  // No inherited COMPOSE_* settings or .env surprises: validate exactly this file, with a fixed project name.
  return spawnSync(command!, [...rest, '-p', 'tenet', '-f', file, 'config', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
}

/** What a user puts in .env (.env.example): the first admin key is required. */
const USER_ENV = { TENET_ADMIN_KEY: 'k'.repeat(40) };

describe('docker-compose.yml', () => {
  const cli = composeCli();

  it("passes the Compose CLI's own `config` validation and resolves every service", () => {
    if ('reason' in cli) {
      console.warn(`skipped: ${cli.reason}`);
      return;
    }
    const quiet = composeConfig(cli.argv, 'docker-compose.yml', ['-q']);
    expect({ status: quiet.status, stderr: quiet.stderr }).toEqual({ status: 0, stderr: '' });
    const services = composeConfig(cli.argv, 'docker-compose.yml', ['--services']);
    expect(services.stdout.trim().split('\n').sort()).toEqual(Object.keys(compose.services).sort());
  });

  it('refuses to render without the first admin key, naming it (a deployed gateway must not answer 401 to everything with no way in)', () => {
    if ('reason' in cli) {
      console.warn(`skipped: ${cli.reason}`);
      return;
    }
    const result = composeConfig(cli.argv, 'docker-compose.yml', ['-q'], {});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/TENET_ADMIN_KEY/);
    expect(compose.services['session-gateway']?.environment?.['TENET_ADMIN_KEY']).toMatch(/^\$\{TENET_ADMIN_KEY:\?/);
    expect(compose.services['memory-store']?.environment?.['TENET_ADMIN_KEY']).toBe(
      compose.services['session-gateway']?.environment?.['TENET_ADMIN_KEY'],
    );
  });

  it('the same validation refuses a file Compose does not accept (the check can fail)', () => {
    if ('reason' in cli) {
      console.warn(`skipped: ${cli.reason}`);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'tenet-compose-'));
    try {
      const broken = join(dir, 'docker-compose.yml');
      writeFileSync(
        broken,
        readFileSync(join(root, 'docker-compose.yml'), 'utf8').replace('restart: unless-stopped', 'restart_policy: unless-stopped'),
      );
      const result = composeConfig(cli.argv, broken, ['-q']);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/restart_policy/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses the Compose specification (no version key) and builds the Tenet image once', () => {
    expect(compose.version).toBeUndefined();
    expect(tenet.map(([name]) => name).sort()).toEqual([
      'channel-gateway',
      'guideline-matcher',
      'journey-engine',
      'memory-store',
      'metering',
      'session-gateway',
      'tool-executor',
    ]);
    expect(Object.values(compose.services).filter((s) => s.build !== undefined)).toHaveLength(1);
  });

  it('runs each service by its compiled entry point, read-only, restarted on failure', () => {
    for (const [name, service] of tenet) {
      expect(service.command).toEqual(['node', `dist/apps/${name}/main.js`]);
      expect(existsSync(join(root, 'apps', name, 'src/main.ts'))).toBe(true);
      expect(service.read_only).toBe(true);
    }
    for (const service of Object.values(compose.services)) expect(service.restart).toBe('unless-stopped');
  });

  it('publishes only the Tenet APIs (gateway, memory store, channel gateway), never a backing service, and passes the LLM settings to the matcher', () => {
    const published = Object.entries(compose.services)
      .filter(([, s]) => s.ports)
      .map(([name]) => name);
    expect(published.sort()).toEqual(['channel-gateway', 'memory-store', 'session-gateway']);
    expect(Object.keys(compose.services['guideline-matcher']!.environment ?? {})).toEqual(
      expect.arrayContaining(['TENET_LLM_PROVIDER', 'TENET_LLM_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']),
    );
  });

  it("keeps the memory store's knowledge index on a named volume at its data dir", () => {
    const store = compose.services['memory-store'] as ComposeService & { volumes?: string[] };
    expect(store.environment?.['TENET_DATA_DIR']).toBe('/data');
    expect(store.volumes).toEqual(['memory-data:/data']);
    // The gateway's log: the memory store's REST checks the same API keys and workspace ownership.
    expect(store.environment?.['MONGO_URL']).toBe(compose.services['session-gateway']!.environment?.['MONGO_URL']);
    expect(store.environment?.['MONGO_URL']).toMatch(/\/tenet\?/);
  });

  it('pins every image to a version', () => {
    for (const service of Object.values(compose.services)) expect(service.image ?? 'tenet:local').toMatch(/:(local|\d+\.\d+\.\d+[-\w]*)$/);
  });
});
