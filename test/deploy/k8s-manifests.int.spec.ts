/**
 * Every manifest in k8s/ rendered (base + each overlay, through the offline renderer in ./kustomize.ts) and
 * validated against the Kubernetes and KEDA schemas from `kubernetes-models` (types, required fields, enums,
 * quantity formats — not unknown fields), then checked for what production needs: pinned images, probes on
 * /healthz and /readyz, non-root read-only containers, requests, a PDB per Deployment and a scaler per worker.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { TenetMetrics } from '@tenet/observability';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy, Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { readYamlDocuments, render, strategicMerge, type Manifest } from './kustomize.js';

const root = resolve(import.meta.dirname, '../..');
const k8s = join(root, 'k8s');
const models: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};

function validate(manifest: Manifest): void {
  const Model = models[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`${manifest.apiVersion} ${manifest.kind} "${manifest.metadata.name}" has no schema in this test`);
  new Model(manifest as never).validate();
}

interface Container {
  name: string;
  image: string;
  args: string[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}
interface Probe {
  httpGet: { path: string };
}
const podSpec = (d: Manifest) =>
  (d['spec'] as { template: { spec: { containers: Container[]; securityContext?: Record<string, unknown> } } }).template.spec;
const byKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);

describe('the renderer', () => {
  it('merges maps, merges named lists by name and replaces other lists', () => {
    expect(
      strategicMerge(
        {
          a: 1,
          c: { d: [1, 2] },
          l: [
            { name: 'x', v: 1 },
            { name: 'y', v: 1 },
          ],
        },
        { c: { d: [3] }, l: [{ name: 'y', v: 2 }, { name: 'z' }] },
      ),
    ).toEqual({ a: 1, c: { d: [3] }, l: [{ name: 'x', v: 1 }, { name: 'y', v: 2 }, { name: 'z' }] });
  });

  it('refuses Kustomize features it does not implement', () => {
    expect(() => render(join(root, 'test/deploy/fixtures/unsupported-kustomization'))).toThrow(/configMapGenerator.*does not support/);
  });
});

describe.each(['dev', 'prod'])('k8s/overlays/%s', (overlay) => {
  const objects = render(join(k8s, 'overlays', overlay));
  const deployments = byKind(objects, 'Deployment');

  it('renders only objects that validate against the Kubernetes and KEDA schemas', () => {
    expect(objects.length).toBeGreaterThan(10);
    for (const manifest of objects) expect(() => validate(manifest)).not.toThrow();
    expect(new Set(objects.map((o) => o.metadata.namespace))).toEqual(new Set([overlay === 'prod' ? 'tenet' : 'tenet-dev']));
  });

  it('runs every service from the one pinned image, by its compiled entry point', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'channel-gateway',
      'guideline-matcher',
      'journey-engine',
      'memory-store',
      'metering',
      'session-gateway',
      'tool-executor',
    ]);
    for (const deployment of deployments) {
      const [container] = podSpec(deployment).containers;
      expect(container!.image).toMatch(/^registry\.example\.com\/tenet:\d+\.\d+\.\d+$/);
      const [node, entry] = container!.args;
      expect(node).toBe('node');
      const app = /^dist\/apps\/([a-z-]+)\/main\.js$/.exec(entry!)?.[1];
      expect(app).toBe(deployment.metadata.name);
      expect(existsSync(join(root, 'apps', app!, 'src/main.ts'))).toBe(true);
    }
  });

  it('gives every container start-up, readiness (/readyz) and liveness (/healthz) probes, requests and a locked-down security context', () => {
    for (const deployment of deployments) {
      const spec = podSpec(deployment);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of spec.containers) {
        expect(container.startupProbe?.httpGet.path).toBe('/healthz');
        expect(container.readinessProbe?.httpGet.path).toBe('/readyz');
        expect(container.livenessProbe?.httpGet.path).toBe('/healthz');
        expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources.limits?.['memory']).toEqual(expect.any(String));
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it('covers every Deployment with a PodDisruptionBudget, Services and the Ingress with existing targets', () => {
    const labelsOf = (d: Manifest) =>
      (d['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const selects = (selector: Record<string, string>, d: Manifest) => Object.entries(selector).every(([k, v]) => labelsOf(d)[k] === v);
    for (const deployment of deployments) {
      expect(
        byKind(objects, 'PodDisruptionBudget').filter((p) =>
          selects((p['spec'] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, deployment),
        ),
      ).toHaveLength(1);
    }
    for (const service of byKind(objects, 'Service')) {
      expect(deployments.filter((d) => selects((service['spec'] as { selector: Record<string, string> }).selector, d))).toHaveLength(1);
    }
    const backends = JSON.stringify(byKind(objects, 'Ingress')).match(/"service":\{"name":"([^"]+)"/g) ?? [];
    expect(backends.length).toBeGreaterThan(0);
    for (const backend of backends)
      expect(byKind(objects, 'Service').map((s) => s.metadata.name)).toContain(/"name":"([^"]+)"/.exec(backend)![1]);
  });

  it('scales the gateway on CPU and the workers on their load with KEDA', () => {
    const hpa = byKind(objects, 'HorizontalPodAutoscaler');
    expect(hpa.map((h) => (h['spec'] as { scaleTargetRef: { name: string } }).scaleTargetRef.name).sort()).toEqual([
      'channel-gateway',
      'session-gateway',
    ]);
    const scalers = Object.fromEntries(
      byKind(objects, 'ScaledObject').map((s) => [
        (s['spec'] as { scaleTargetRef: { name: string } }).scaleTargetRef.name,
        (s['spec'] as { triggers: { type: string; metadata: Record<string, string> }[] }).triggers,
      ]),
    );
    expect(scalers['guideline-matcher']).toEqual([
      expect.objectContaining({
        type: 'prometheus',
        metadata: expect.objectContaining({ query: expect.stringContaining('tenet_matcher_in_flight_requests') }),
      }),
    ]);
    expect(scalers['tool-executor']).toEqual([
      expect.objectContaining({ type: 'redis', metadata: expect.objectContaining({ listName: 'tenet:tool-calls:wait' }) }),
    ]);
  });

  it('runs the memory store as a singleton on a persistent claim, routes its REST to it and lets traffic reach it', () => {
    const store = deployments.find((d) => d.metadata.name === 'memory-store')!;
    const spec = store['spec'] as {
      replicas: number;
      strategy: { type: string };
      template: { spec: { volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[]; containers: Container[] } };
    };
    // The knowledge index is one SQLite file (ADR 0016): never two pods on it, and it survives a restart.
    expect(spec.replicas).toBe(1);
    expect(spec.strategy.type).toBe('Recreate');
    const claim = spec.template.spec.volumes.find((v) => v.persistentVolumeClaim)!.persistentVolumeClaim!.claimName;
    expect(byKind(objects, 'PersistentVolumeClaim').map((c) => c.metadata.name)).toEqual([claim]);
    expect(JSON.stringify(spec.template.spec.containers[0]!)).toContain('"mountPath":"/data"');
    // The memory REST paths go to the memory store, everything else to the gateway.
    const paths = byKind(objects, 'Ingress').flatMap((i) =>
      (i['spec'] as { rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] }).rules.flatMap(
        (r) => r.http.paths,
      ),
    );
    const routed = (path: string) =>
      paths
        .filter((p) => (p.path.includes('[') ? new RegExp(`^${p.path}`).test(path) : path.startsWith(p.path)))
        .sort((a, b) => b.path.length - a.path.length)[0]?.backend.service.name;
    expect(routed('/knowledge/sources')).toBe('memory-store');
    expect(routed('/customers/c-1/memory/f-1')).toBe('memory-store');
    expect(routed('/customers/c-1')).toBe('session-gateway');
    // Under default deny: the ingress controller reaches its port, and Prometheus scrapes every Deployment's port.
    const policies = byKind(objects, 'NetworkPolicy').map(
      (p) => p['spec'] as { podSelector: { matchLabels?: Record<string, string> }; ingress?: { ports: { port: number }[] }[] },
    );
    expect(
      policies.some(
        (p) =>
          p.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'memory-store' &&
          p.ingress?.some((rule) => rule.ports.some((port) => port.port === 8806)),
      ),
    ).toBe(true);
    const scraped = policies
      .filter((p) => p.podSelector.matchLabels?.['app.kubernetes.io/part-of'] === 'tenet')
      .flatMap((p) => p.ingress ?? [])
      .flatMap((rule) => rule.ports.map((port) => port.port));
    for (const deployment of deployments) {
      const annotations = (deployment['spec'] as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata
        .annotations;
      expect(scraped).toContain(Number(annotations['prometheus.io/port']));
    }
  });

  it('denies traffic by default; every Secret it references is in the template, and only the first admin key is required', () => {
    expect(
      byKind(objects, 'NetworkPolicy').some(
        (p) =>
          (p['spec'] as { ingress?: unknown; egress?: unknown }).ingress === undefined &&
          (p['spec'] as { egress?: unknown }).egress === undefined,
      ),
    ).toBe(true);
    const templates = readYamlDocuments(join(k8s, 'base/secret.template.yaml'));
    const documented = new Set(
      templates.flatMap((t) => Object.keys(t['stringData'] as object).map((key) => `${(t['metadata'] as { name: string }).name}/${key}`)),
    );
    const refs = (JSON.stringify(objects).match(/"secretKeyRef":\{[^}]*\}/g) ?? []).map(
      (ref) => JSON.parse(ref.slice('"secretKeyRef":'.length)) as { name: string; key: string; optional?: boolean },
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(documented).toContain(`${ref.name}/${ref.key}`);
    expect(new Set(refs.filter((ref) => ref.optional !== true).map((ref) => `${ref.name}/${ref.key}`))).toEqual(
      new Set(['tenet-auth/TENET_ADMIN_KEY']),
    );
    // A distributed gateway requires keys: with the first admin key wired in, a fresh deployment can make its first key.
    const gateway = byKind(objects, 'Deployment').find((d) => (d['metadata'] as { name: string }).name === 'session-gateway')!;
    expect(JSON.stringify(gateway)).toContain('"name":"TENET_ADMIN_KEY"');
  });
});

describe('k8s/base/secret.template.yaml', () => {
  it('holds two valid Secrets with empty values: the provider keys and the admin/secrets keys', () => {
    const [llm, auth] = readYamlDocuments(join(k8s, 'base/secret.template.yaml'));
    for (const secret of [llm, auth]) expect(() => validate(secret!)).not.toThrow();
    expect(llm!['stringData']).toEqual({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' });
    expect(auth!['stringData']).toEqual({ TENET_ADMIN_KEY: '', TENET_SECRETS_KEY: '' });
  });
});

describe('k8s/grafana/tenet-dashboard.json', () => {
  const dashboard = JSON.parse(readFileSync(join(k8s, 'grafana/tenet-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: { type: string; title: string; targets?: { expr: string }[] }[];
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);

  it('queries only metrics that Tenet processes export (names from TenetMetrics)', async () => {
    const exported = new Set((await new TenetMetrics('dashboard-test').registry.getMetricsAsJSON()).map((m) => m.name));
    const suffixes = /_(bucket|count|sum)$/;
    const used = new Set(
      exprs
        .flatMap((expr) => expr.match(/\btenet_[a-z_]+\b/g) ?? [])
        .map((name) => (exported.has(name) ? name : name.replace(suffixes, ''))),
    );
    expect(used.size).toBeGreaterThan(8);
    for (const name of used) expect(exported).toContain(name);
  });

  it('covers turns, errors, token spend per agent, the matcher scaling metric and relay lag', () => {
    for (const metric of [
      'tenet_turn_duration_seconds_bucket',
      'tenet_http_request_duration_seconds_count',
      'tenet_llm_tokens_total',
      'tenet_llm_cost_usd_total',
      'tenet_matcher_in_flight_requests',
      'tenet_event_log_relay_pending_events',
    ]) {
      expect(exprs.some((expr) => expr.includes(metric))).toBe(true);
    }
    expect(exprs.filter((expr) => expr.includes('tenet_llm_')).some((expr) => expr.includes('by (agent_id'))).toBe(true);
  });
});
