// The chart through the real `helm`: lint, render with every documented value set, reject bad
// values through the schema, and check what the rendered pods (and the pods the operator would
// create from the rendered HyphaeMesh) are allowed to do.
import { describe, expect, it } from 'vitest';
import { patroniRules } from '../../operator/src/desired/patroni-rbac.js';
import { HYPHAE_MESH, OWNED_TYPES } from '../../operator/src/kube/resource-types.js';
import { CHART_DIR, KUBE_VERSION, ciValueFiles, ciValues, findObject, helmSkipReason, renderChart, runHelm, valueArgs } from '../support/k8s/helm.js';
import type { RenderedObject } from '../support/k8s/helm.js';
import { operatorObjectsFor } from './operator-desired.js';
import { containersWithoutRequests, podSpecOf, restrictedViolations } from './pod-security.js';
import type { PodSpec } from './pod-security.js';

const skip = helmSkipReason();
const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'];
/** The pod-bearing objects the operator creates from each value set (with mesh.enabled). */
const OPERATOR_WORKLOADS: Record<string, string[]> = {
  defaults: ['Deployment/hyphae-api', 'Deployment/hyphae-worker', 'StatefulSet/hyphae-nats', 'StatefulSet/hyphae-postgres'],
  'mesh-managed-values.yaml': ['Deployment/hyphae-api', 'Deployment/hyphae-worker', 'StatefulSet/hyphae-nats', 'StatefulSet/hyphae-postgres'],
  // External PostgreSQL and NATS: only our own pods.
  'mesh-external-values.yaml': ['Deployment/memory-api', 'Deployment/memory-worker'],
  // The database is a CNPG Cluster (CNPG makes its pods), NATS stays managed.
  'mesh-cnpg-monitoring-values.yaml': ['Deployment/hyphae-api', 'Deployment/hyphae-worker', 'StatefulSet/hyphae-nats'],
  'operator-ha-namespaced-values.yaml': ['Deployment/hyphae-api', 'Deployment/hyphae-worker', 'StatefulSet/hyphae-nats', 'StatefulSet/hyphae-postgres'],
  // PostgreSQL under Patroni, and the backup CronJob.
  'mesh-ha-backup-values.yaml': ['CronJob/hyphae-postgres-backup', 'Deployment/hyphae-api', 'Deployment/hyphae-worker', 'StatefulSet/hyphae-nats', 'StatefulSet/hyphae-postgres'],
  'mesh-restore-s3-values.yaml': [
    'CronJob/memory-restored-postgres-backup',
    'Deployment/memory-restored-api',
    'Deployment/memory-restored-worker',
    'StatefulSet/memory-restored-nats',
    'StatefulSet/memory-restored-postgres',
  ],
};
/** Pods that run to completion report no readiness and need no liveness probe. */
const RUN_TO_COMPLETION = ['Job', 'CronJob'];
const RECOMMENDED_LABELS = ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/version', 'app.kubernetes.io/managed-by', 'helm.sh/chart'];

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** A workload's pod template; a workload without one fails the test instead of escaping its checks. */
function requirePodSpec(o: RenderedObject, where: string): PodSpec {
  const pod = podSpecOf(o);
  if (!pod) throw new Error(`${where}: ${o.kind}/${o.metadata.name} has no pod template`);
  return pod;
}

describe.skipIf(skip !== undefined)('helm chart rendering', () => {
  it('passes helm lint --strict with the default values and every ci value set', async () => {
    for (const files of [[], ...ciValueFiles.map((f) => [ciValues(f)])]) {
      const r = await runHelm(['lint', '--strict', CHART_DIR, ...valueArgs(files)]);
      expect(r.code, `${files.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('0 chart(s) failed');
    }
  });

  it('renders the default values: the operator and its RBAC, no HyphaeMesh', async () => {
    const objects = await renderChart();
    const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(kinds).toEqual([
      'ClusterRole/hyphae-operator',
      'ClusterRoleBinding/hyphae-operator',
      'Deployment/hyphae-operator',
      'NetworkPolicy/hyphae-operator',
      'Role/hyphae-operator-leader-election',
      'RoleBinding/hyphae-operator-leader-election',
      'Service/hyphae-operator-metrics',
      'ServiceAccount/hyphae-operator',
    ]);
    const deployment = findObject(objects, 'Deployment');
    const container = (podSpecOf(deployment as RenderedObject)?.containers ?? [])[0] as unknown as {
      command: string[];
      args: string[];
      ports: Array<{ name: string; containerPort: number }>;
      livenessProbe: { httpGet: { path: string; port: string } };
      readinessProbe: { httpGet: { path: string; port: string } };
    };
    expect(container.command).toEqual(['hyphae', 'operator']);
    expect(container.args).toEqual(['--probe-port=8080', '--log-level=info', '--lease-namespace=$(POD_NAMESPACE)']);
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect((findObject(objects, 'Service')?.spec as { ports: unknown[] }).ports).toEqual([{ name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' }]);
  });

  it('renders every ci value set, each object carrying the recommended labels', async () => {
    for (const file of ciValueFiles) {
      const objects = await renderChart([ciValues(file)]);
      expect(objects.length, file).toBeGreaterThan(5);
      for (const o of objects) {
        for (const label of RECOMMENDED_LABELS) expect(o.metadata.labels?.[label], `${file}: ${o.kind}/${o.metadata.name} ${label}`).toBeTruthy();
        expect(o.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
      }
    }
  });

  it('renders the documented value sets as documented', async () => {
    const managed = await renderChart([ciValues('mesh-managed-values.yaml')]);
    const mesh = findObject(managed, 'HyphaeMesh', 'hyphae');
    expect(mesh?.spec).toMatchObject({
      api: { replicas: 3 },
      autoscaling: { enabled: false },
      ingress: { enabled: true, host: 'memory.example.com' },
      image: { repository: 'ghcr.io/hyphae-dev/hyphae', tag: '0.1.0' },
      auth: { bootstrapAdminKeySecret: { name: 'hyphae-admin-key', key: 'admin-key' } },
    });
    const secret = findObject(managed, 'Secret', 'hyphae-admin-key') as RenderedObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data['admin-key'] ?? '', 'base64').toString()).toMatch(/^hy_[A-Za-z0-9]{40}$/);
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');

    const external = await renderChart([ciValues('mesh-external-values.yaml')]);
    expect(findObject(external, 'Secret')).toBeUndefined();
    expect(findObject(external, 'HyphaeMesh', 'memory')?.spec).toMatchObject({
      postgres: { mode: 'external', secretRef: { name: 'hyphae-db', key: 'url' } },
      auth: { bootstrapAdminKeySecret: { name: 'hyphae-admin', key: 'key' } },
    });

    const cnpg = await renderChart([ciValues('mesh-cnpg-monitoring-values.yaml')]);
    expect(findObject(cnpg, 'ServiceMonitor', 'hyphae-operator')).toBeDefined();
    expect(findObject(cnpg, 'HyphaeMesh')?.spec).toMatchObject({ image: { repository: 'registry.example.com/hyphae', tag: '0.1.0-rc.1', pullPolicy: 'Always' } });

    const ha = await renderChart([ciValues('operator-ha-namespaced-values.yaml')]);
    expect(findObject(ha, 'ClusterRole')).toBeUndefined();
    expect(findObject(ha, 'Role', 'hyphae-operator')?.metadata.namespace).toBe('team-memory');
    expect(findObject(ha, 'RoleBinding', 'hyphae-operator')?.metadata.namespace).toBe('team-memory');
    expect(findObject(ha, 'PodDisruptionBudget')?.spec).toMatchObject({ maxUnavailable: 1 });
    const args = (podSpecOf(findObject(ha, 'Deployment') as RenderedObject)?.containers[0] as unknown as { args: string[] }).args;
    expect(args).toContain('--namespace=team-memory');
    expect(args).toContain('--log-level=debug');
  });

  it('rejects bad values through values.schema.json, naming the offending value', async () => {
    const cases: Array<[Record<string, string | number | boolean>, string]> = [
      [{ 'operator.logLevel': 'loud' }, "at '/operator/logLevel': value must be one of 'debug', 'info', 'warn', 'error'"],
      [{ 'mesh.replicas': 3 }, "at '/mesh': additional properties 'replicas' not allowed"],
      [{ unknownTopLevel: true }, "additional properties 'unknownTopLevel' not allowed"],
      [{ 'operator.replicas': -1 }, "at '/operator/replicas': minimum: got -1, want 0"],
      [{ 'mesh.postgres.mode': 'external' }, "missing property 'secretRef'"],
      [{ 'mesh.ingress.enabled': true }, "missing property 'host'"],
      [{ 'mesh.workers.embedder': 'word2vec' }, "at '/mesh/workers/embedder': value must be one of 'minilm', 'use-lite', 'hash', 'openai'"],
      [{ 'mesh.api.resources.requests.cpu': 'lots' }, "at '/mesh/api/resources/requests/cpu'"],
      [{ 'image.pullPolicy': 'Sometimes' }, "at '/image/pullPolicy'"],
      [{ 'mesh.nats.replicas': 12 }, "at '/mesh/nats/replicas': maximum: got 12, want 9"],
      [{ 'mesh.api.database.hnsw.efSearch': 0 }, "at '/mesh/api/database/hnsw/efSearch': minimum: got 0, want 1"],
      [{ 'mesh.api.database.hnsw.iterativeScan': 'sideways' }, "at '/mesh/api/database/hnsw/iterativeScan'"],
      [{ 'mesh.postgres.instances': 10 }, "at '/mesh/postgres/instances': maximum: got 10, want 9"],
      [{ 'mesh.postgres.backup.schedule': 'nightly' }, "at '/mesh/postgres/backup/schedule'"],
      [{ 'mesh.postgres.mode': 'cnpg', 'mesh.postgres.backup.enabled': true }, "at '/mesh/postgres/backup/enabled'"],
      [{ 'mesh.postgres.restore.stanza': 'old' }, "at '/mesh/postgres/restore'"],
    ];
    for (const [set, message] of cases) {
      const r = await runHelm(['template', 'hyphae', CHART_DIR, '--kube-version', KUBE_VERSION, ...valueArgs([], set)]);
      expect(r.code, JSON.stringify(set)).not.toBe(0);
      expect(r.stderr, JSON.stringify(set)).toContain("values don't meet the specifications of the schema");
      expect(r.stderr, JSON.stringify(set)).toContain(message);
    }
  });

  it('renders only restricted-PSS pods with resource requests, probes and a writable /tmp', async () => {
    for (const files of [[], ...ciValueFiles.map((f) => [ciValues(f)])]) {
      const objects = await renderChart(files);
      const workloads = objects.filter((o) => WORKLOAD_KINDS.includes(o.kind));
      expect(workloads.map((o) => o.kind)).toEqual(['Deployment']);
      for (const w of workloads) {
        const pod = requirePodSpec(w, files.join() || 'defaults');
        expect(restrictedViolations(pod), `${files.join()}: ${w.metadata.name}`).toEqual([]);
        expect(containersWithoutRequests(pod)).toEqual([]);
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
        for (const c of pod.containers as unknown as Array<{ livenessProbe?: unknown; readinessProbe?: unknown; volumeMounts?: Array<{ mountPath: string }> }>) {
          expect(c.livenessProbe).toBeDefined();
          expect(c.readinessProbe).toBeDefined();
          expect(c.volumeMounts?.map((m) => m.mountPath)).toContain('/tmp');
        }
      }
    }
  });

  it('gives the pods the operator creates from the chart defaults the restricted PSS, requests, probes and an API autoscaler', async () => {
    for (const file of ['defaults', ...ciValueFiles]) {
      const files = file === 'defaults' ? [] : [ciValues(file)];
      const objects = operatorObjectsFor(await renderChart(files, { 'mesh.enabled': true }));
      const workloads = objects.filter((x) => WORKLOAD_KINDS.includes(x.kind));
      // Every pod the operator would run is checked: none may be missing or lack a template.
      expect(workloads.map((o) => `${o.kind}/${o.metadata.name}`).sort(), file).toEqual(OPERATOR_WORKLOADS[file]);
      for (const o of workloads) {
        const where = `${file}: ${o.kind}/${o.metadata.name}`;
        const pod = requirePodSpec(o, file);
        expect(restrictedViolations(pod), where).toEqual([]);
        expect(containersWithoutRequests(pod), where).toEqual([]);
        if (RUN_TO_COMPLETION.includes(o.kind)) continue;
        for (const c of pod.containers as unknown as Array<{ name: string; livenessProbe?: unknown; readinessProbe?: unknown }>) {
          expect(c.readinessProbe, `${where} ${c.name}`).toBeDefined();
          expect(c.livenessProbe, `${where} ${c.name}`).toBeDefined();
        }
      }
    }
    const defaults = operatorObjectsFor(await renderChart([], { 'mesh.enabled': true }));
    expect(defaults.find((o) => o.kind === 'HorizontalPodAutoscaler')?.spec).toMatchObject({ minReplicas: 2, maxReplicas: 10 });
    for (const o of defaults.filter((x) => x.kind === 'Deployment')) expect(podSpecOf(o)?.securityContext, o.metadata.name).toMatchObject({ runAsUser: 65532, fsGroup: 65532 });
    const named = (kind: string): string[] => defaults.filter((o) => o.kind === kind).map((o) => o.metadata.name).sort();
    expect(named('PodDisruptionBudget')).toEqual(['hyphae-api', 'hyphae-nats']);
    expect(named('NetworkPolicy')).toEqual(['hyphae-api', 'hyphae-nats', 'hyphae-postgres', 'hyphae-worker']);
  });

  it('passes mesh.networkPolicy.apiFrom through to the API NetworkPolicy', async () => {
    const objects = operatorObjectsFor(await renderChart([ciValues('mesh-managed-values.yaml')]));
    const api = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'hyphae-api');
    expect(api?.spec).toMatchObject({
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], ports: [{ port: 8787 }, { port: 50051 }] }],
    });
    const off = operatorObjectsFor(await renderChart([], { 'mesh.enabled': true, 'mesh.networkPolicy.enabled': false }));
    expect(off.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  it('passes mesh.api.database to the API pods as HYPHAE_DB_* / HYPHAE_HNSW_* settings, defaulting to the server’s own', async () => {
    const configOf = (objects: RenderedObject[]): Record<string, string> =>
      (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'hyphae-config') as unknown as { data: Record<string, string> }).data;
    const defaults = configOf(operatorObjectsFor(await renderChart([], { 'mesh.enabled': true })));
    expect(defaults).toMatchObject({
      HYPHAE_DB_POOL_MAX: '10',
      HYPHAE_DB_ACQUIRE_TIMEOUT_MS: '5000',
      HYPHAE_DB_STATEMENT_TIMEOUT_MS: '30000',
      HYPHAE_HNSW_EF_SEARCH: '40',
      HYPHAE_HNSW_ITERATIVE_SCAN: 'relaxed_order',
      HYPHAE_HNSW_MAX_SCAN_TUPLES: '20000',
    });
    const set = { 'mesh.enabled': true, 'mesh.api.database.poolMax': 20, 'mesh.api.database.hnsw.efSearch': 100, 'mesh.api.database.hnsw.iterativeScan': 'strict_order' };
    const rendered = await renderChart([], set);
    expect(findObject(rendered, 'HyphaeMesh')?.spec).toMatchObject({ api: { database: { poolMax: 20, hnsw: { efSearch: 100, iterativeScan: 'strict_order' } } } });
    const api = operatorObjectsFor(rendered).find((o) => o.kind === 'Deployment' && o.metadata.name === 'hyphae-api');
    expect(JSON.stringify(api?.spec)).toContain('"configMapRef":{"name":"hyphae-config"}');
    expect(configOf(operatorObjectsFor(rendered))).toMatchObject({ HYPHAE_DB_POOL_MAX: '20', HYPHAE_HNSW_EF_SEARCH: '100', HYPHAE_HNSW_ITERATIVE_SCAN: 'strict_order' });
  });

  it('carries mesh.oauth to the HyphaeMesh and from there to the API pods, the ingress host as public URL', async () => {
    const set = {
      'mesh.enabled': true,
      'mesh.ingress.enabled': true,
      'mesh.ingress.host': 'memory.example.com',
      'mesh.oauth.issuer': 'https://id.example.com/realms/hyphae',
      'mesh.oauth.defaultTenant': 'acme',
    };
    const rendered = await renderChart([], set);
    expect(findObject(rendered, 'HyphaeMesh')?.spec).toMatchObject({ oauth: { issuer: 'https://id.example.com/realms/hyphae', defaultTenant: 'acme' } });
    const config = (operatorObjectsFor(rendered).find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> }).data;
    expect(config).toMatchObject({ HYPHAE_OAUTH_ISSUER: 'https://id.example.com/realms/hyphae', HYPHAE_OAUTH_DEFAULT_TENANT: 'acme', HYPHAE_PUBLIC_URL: 'https://memory.example.com' });
    const refused = await runHelm(['template', 'hyphae', CHART_DIR, '--kube-version', KUBE_VERSION, ...valueArgs([], { 'mesh.oauth.issuer': 'https://id.example.com' })]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('/mesh/oauth');
  });

  it('grants the operator exactly the kinds it manages, with the verbs it uses', async () => {
    const objects = await renderChart();
    const rules = (findObject(objects, 'ClusterRole')?.rules ?? []) as Rule[];
    const grants = new Map<string, string[]>();
    for (const r of rules) {
      expect(r.resourceNames).toBeUndefined();
      for (const g of r.apiGroups) for (const res of r.resources) grants.set(`${g}/${res}`, [...(grants.get(`${g}/${res}`) ?? []), ...r.verbs].sort());
    }
    const manage = ['create', 'delete', 'get', 'list', 'patch', 'watch'];
    const expected = new Map<string, string[]>([
      [`${HYPHAE_MESH.group}/${HYPHAE_MESH.plural}`, ['get', 'list', 'watch']],
      [`${HYPHAE_MESH.group}/${HYPHAE_MESH.plural}/status`, ['get', 'patch']],
      [`${HYPHAE_MESH.group}/${HYPHAE_MESH.plural}/finalizers`, ['update']],
      ...OWNED_TYPES.map((t): [string, string[]] => [`${t.group}/${t.plural}`, manage]),
      // Granted on to each mesh's Patroni, so held by the operator too.
      ...patroniRules().flatMap((r) => r.resources.map((res): [string, string[]] => [`${r.apiGroups[0] ?? ''}/${res}`, [...r.verbs].sort()])),
    ]);
    expect(Object.fromEntries([...grants].sort())).toEqual(Object.fromEntries([...expected].sort()));
    for (const r of rules) expect([...r.apiGroups, ...r.resources, ...r.verbs]).not.toContain('*');

    const lease = findObject(objects, 'Role', 'hyphae-operator-leader-election')?.rules as Rule[];
    expect(lease).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['hyphae-operator'], verbs: ['get', 'update'] },
    ]);
    const binding = findObject(objects, 'ClusterRoleBinding') as RenderedObject & { subjects: unknown[]; roleRef: { name: string } };
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'hyphae-operator', namespace: 'hyphae' }]);
    expect(binding.roleRef.name).toBe('hyphae-operator');
  });
});
