import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { credentialNotes, definitionFromResources, renderDefinition, type Entry } from '@tenet/cli-domain';
import { CliError, type TenetApi } from './api-client.js';
import { knowledgeHash } from './definition-files.js';
import { readAgentState } from './server-state.js';

export interface ExportResult {
  /** agent id → the file written (or the YAML, when printing) */
  files: Map<string, string>;
  /** Knowledge documents whose content the API does not return and no given directory held. */
  warnings: string[];
}

const documentFormat = (name: string): string | undefined =>
  /\.pdf$/i.test(name)
    ? 'pdf'
    : /\.html?$/i.test(name)
      ? 'html'
      : /\.(md|markdown)$/i.test(name)
        ? 'markdown'
        : /\.txt$/i.test(name)
          ? 'text'
          : undefined;

/** Files under the directories (not recursive), by their knowledge content hash. */
function documentsByHash(directories: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const directory of directories) {
    if (!existsSync(directory)) continue;
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      const format = documentFormat(name);
      if (!format || !statSync(path).isFile()) continue;
      const content = format === 'pdf' ? readFileSync(path).toString('base64') : readFileSync(path, 'utf8');
      found.set(knowledgeHash(format, content), path);
    }
  }
  return found;
}

/**
 * Writes each agent's current definitions to `<out>/<agent id>.yaml` (or returns the YAML when `out` is absent).
 * The API does not return a knowledge document's content, so each one is taken from a file whose content hash
 * matches — in `<out>/knowledge/` or a `--knowledge-from` directory — and copied to `<out>/knowledge/`.
 */
export async function exportAgents(
  api: TenetApi,
  agentIds: readonly string[],
  options: { out?: string; knowledgeFrom?: string[]; schemaPath?: string },
): Promise<ExportResult> {
  const result: ExportResult = { files: new Map(), warnings: [] };
  const out = options.out ? resolve(options.out) : undefined;
  const knowledgeDir = out ? join(out, 'knowledge') : undefined;
  const documents = documentsByHash([...(knowledgeDir ? [knowledgeDir] : []), ...(options.knowledgeFrom ?? []).map((d) => resolve(d))]);
  for (const agentId of agentIds) {
    const resources = await readAgentState(api, agentId);
    if (resources.length === 0) throw new CliError(`agent ${agentId} does not exist on ${api.connection.url}`);
    const knowledgeFiles = new Map<string, string>();
    for (const source of resources.filter((r) => r.kind === 'knowledge')) {
      const found = documents.get(String(source.entry['content_hash']));
      const name = found ? basename(found) : `${source.key}.md`;
      knowledgeFiles.set(source.key, `knowledge/${name}`);
      if (!found)
        result.warnings.push(
          `knowledge ${source.key}: the API does not return a document's content and no file with its content was found; put it at knowledge/${name} (or pass --knowledge-from DIR)`,
        );
      else if (knowledgeDir && resolve(found) !== resolve(knowledgeDir, name)) {
        mkdirSync(knowledgeDir, { recursive: true });
        copyFileSync(found, join(knowledgeDir, name));
      }
    }
    result.warnings.push(...credentialNotes(resources));
    const schemaPath = out && options.schemaPath ? relative(out, options.schemaPath) : undefined;
    const yaml = renderDefinition(definitionFromResources(resources, knowledgeFiles), schemaPath);
    if (out) {
      mkdirSync(out, { recursive: true });
      const file = join(out, `${agentId}.yaml`);
      writeFileSync(file, yaml);
      result.files.set(agentId, file);
    } else result.files.set(agentId, yaml);
  }
  return result;
}

/** Every agent's id (for `tenet export --all`). */
export async function allAgentIds(api: TenetApi): Promise<string[]> {
  return (await api.get<Entry[]>('/agents')).map((a) => String(a['id'])).sort();
}
