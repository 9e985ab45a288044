/**
 * docker-compose.yml without a Docker engine: parsed with YAML merge keys as Compose does, then checked for
 * what issue 15 asks — compose v2 syntax, one image built once, compiled entry points that exist, restart
 * policies, the matcher's LLM settings, and no published ports on the backing services.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

interface ComposeService { image?: string; build?: unknown; command?: string[]; restart?: string; ports?: string[]; environment?: Record<string, string>; read_only?: boolean }
const root = resolve(import.meta.dirname, '../..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { version?: string; services: Record<string, ComposeService> };
const tenet = Object.entries(compose.services).filter(([, s]) => s.image === 'tenet:local');

describe('docker-compose.yml', () => {
  it('uses the Compose specification (no version key) and builds the Tenet image once', () => {
    expect(compose.version).toBeUndefined();
    expect(tenet.map(([name]) => name).sort()).toEqual(['guideline-matcher', 'journey-engine', 'memory-store', 'metering', 'session-gateway', 'tool-executor']);
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

  it('publishes only the Tenet APIs (gateway, memory store), never a backing service, and passes the LLM settings to the matcher', () => {
    const published = Object.entries(compose.services).filter(([, s]) => s.ports).map(([name]) => name);
    expect(published.sort()).toEqual(['memory-store', 'session-gateway']);
    expect(Object.keys(compose.services['guideline-matcher']!.environment ?? {})).toEqual(expect.arrayContaining(['TENET_LLM_PROVIDER', 'TENET_LLM_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']));
  });

  it('keeps the memory store\'s knowledge index on a named volume at its data dir', () => {
    const store = compose.services['memory-store'] as ComposeService & { volumes?: string[] };
    expect(store.environment?.['TENET_DATA_DIR']).toBe('/data');
    expect(store.volumes).toEqual(['memory-data:/data']);
    expect(store.environment?.['MONGO_URL']).toMatch(/\/tenet-memory\?/);
  });

  it('pins every image to a version', () => {
    for (const service of Object.values(compose.services)) expect(service.image ?? 'tenet:local').toMatch(/:(local|\d+\.\d+\.\d+[-\w]*)$/);
  });
});
