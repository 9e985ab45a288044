/**
 * A renderer for the subset of Kustomize that k8s/ uses, so the manifests can be checked offline (the
 * `kustomize` binary is not on npm): `resources` (files or directories with a kustomization.yaml),
 * `namespace`, `images` (newName/newTag), `labels` (metadata labels only, includeSelectors: false) and
 * `patches` given by `path` as strategic-merge patches (maps merge, lists of objects with a `name` merge by
 * name, other lists are replaced). Anything else in a kustomization.yaml is refused, so a manifest that uses
 * more of Kustomize than this renderer understands fails the test instead of being checked half-way.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Json = Record<string, unknown>;
const supported = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'labels', 'patches']);
const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readYamlDocuments(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as Manifest;
    })
    .filter((m) => m !== null);
}

export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isMap(base) && isMap(patch)) {
    const merged: Json = { ...base };
    for (const [key, value] of Object.entries(patch)) merged[key] = key in base ? strategicMerge(base[key], value) : value;
    return merged;
  }
  if (Array.isArray(base) && Array.isArray(patch) && patch.every((item) => isMap(item) && typeof item['name'] === 'string')) {
    const merged = base.map((item) => {
      const match = patch.find((p) => isMap(item) && (p as Json)['name'] === item['name']);
      return match ? strategicMerge(item, match) : item;
    });
    for (const item of patch) if (!base.some((b) => isMap(b) && b['name'] === (item as Json)['name'])) merged.push(item);
    return merged;
  }
  return patch;
}

const sameObject = (a: Manifest, b: Manifest): boolean =>
  a.kind === b.kind && a.metadata.name === b.metadata.name && a.apiVersion.split('/')[0] === b.apiVersion.split('/')[0];

function setImages(node: unknown, images: { name: string; newName?: string; newTag?: string }[]): unknown {
  if (Array.isArray(node)) return node.map((item) => setImages(item, images));
  if (!isMap(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    const image =
      key === 'image' && typeof value === 'string' ? images.find((i) => value === i.name || value.startsWith(`${i.name}:`)) : undefined;
    out[key] = image ? `${image.newName ?? image.name}:${image.newTag ?? (value as string).split(':')[1] ?? ''}` : setImages(value, images);
  }
  return out;
}

/** Renders the kustomization in `dir` to the list of objects `kubectl kustomize dir` would print. */
export function render(dir: string): Manifest[] {
  const root = resolve(dir);
  const kustomization = readYamlDocuments(join(root, 'kustomization.yaml'))[0] as unknown as Json;
  const unknown = Object.keys(kustomization).filter((key) => !supported.has(key));
  if (unknown.length > 0)
    throw new Error(`${root}/kustomization.yaml uses ${unknown.join(', ')}, which the offline renderer does not support`);

  let objects: Manifest[] = ((kustomization['resources'] as string[] | undefined) ?? []).flatMap((entry) => {
    const path = join(root, entry);
    if (!existsSync(path)) throw new Error(`${root}/kustomization.yaml: resource ${entry} does not exist`);
    return statSync(path).isDirectory() ? render(path) : readYamlDocuments(path);
  });

  for (const { path } of (kustomization['patches'] as { path: string }[] | undefined) ?? []) {
    for (const patch of readYamlDocuments(join(root, path))) {
      const index = objects.findIndex((o) => sameObject(o, patch));
      if (index < 0) throw new Error(`${join(dirname(root), path)}: patch for ${patch.kind}/${patch.metadata.name} matches no resource`);
      objects[index] = strategicMerge(objects[index], patch) as Manifest;
    }
  }

  for (const { pairs } of (kustomization['labels'] as { pairs: Record<string, string> }[] | undefined) ?? []) {
    objects = objects.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...pairs } } }));
  }
  const images = kustomization['images'] as { name: string; newName?: string; newTag?: string }[] | undefined;
  if (images) objects = objects.map((o) => setImages(o, images) as Manifest);
  const namespace = kustomization['namespace'] as string | undefined;
  if (namespace) objects = objects.map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
  return objects;
}
