// The chart's monitoring on a real node: a real Prometheus (scripts/prometheus-assets.sh), running
// in the cluster's network namespace, scrapes a mesh and its operator with the scrape configuration
// of docs/operations.md and evaluates the rules the chart renders. Every recording rule and every
// dashboard query returns series; all embedding workers scaled to 0 and the NATS pod deleted each
// fire their alert within its `for:` plus a scrape and an evaluation interval, and resolve after.
// `for:` of those two alerts is shortened through the chart's own monitoring.prometheusRule.alertFor.
import { connect as connectHttp2 } from 'node:http2';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findPrometheusBinary, prometheusSkipReason } from '../support/monitoring/monitoring-assets.js';
import { dashboardQueries, recordedNames } from '../support/monitoring/monitoring-files.js';
import { KUBE_VERSION } from '../support/k8s/helm.js';
import { CLUSTER_POLL_MS, callTool, clusterEnv, connectDiffReader, fetchVia, kubectl, kubectlJson, meshReady, ok, podReady, run, type ClusterMesh, type ClusterPod } from '../support/k8s/cluster.js';
import { waitFor } from '../support/wait-for.js';
import { startPrometheus, type PrometheusAlert, type RunningPrometheus } from './prometheus.js';

const { env, skip } = clusterEnv();
const prometheusSkip = skip === undefined ? prometheusSkipReason('prometheus') : skip;
const CHART = fileURLToPath(new URL('../../charts/hyphae', import.meta.url));
const NS = 'hyphae-mon';
const RELEASE = 'mon';
const MESH = 'mon';
const API_HOST = `${MESH}-api`;
const NODE = 'hyphae-node';
const SCRAPE_SECONDS = 5;
const EVALUATION_SECONDS = 5;
/** The shortened `for:` of the two alerts the faults fire (test-only, through the chart's values). */
const FAULT_FOR_SECONDS = 20;
/** Beyond `for:` + a scrape + an evaluation: discovery noticing a pod and one late evaluation on a busy machine. */
const ALERT_SLACK_SECONDS = SCRAPE_SECONDS + EVALUATION_SECONDS;

const pods = async (component: string): Promise<ClusterPod[]> =>
  (await kubectlJson<{ items: ClusterPod[] }>('-n', NS, 'get', 'pods', '-l', `app.kubernetes.io/instance=${MESH},app.kubernetes.io/component=${component}`)).items;

function helmValues(e: NonNullable<typeof env>): string[] {
  const [repository, tag] = e.hyphaeImage.split(/:(?=[^:]+$)/);
  return [
    '--set', `image.repository=${repository}`, '--set-string', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never',
    '--set', `operator.watchNamespace=${NS}`,
    '--set', 'mesh.enabled=true', '--set', `mesh.name=${MESH}`,
    '--set', 'mesh.autoscaling.enabled=false', '--set', 'mesh.api.replicas=1', '--set', 'mesh.workers.replicas=1',
    '--set', `mesh.postgres.image=${e.postgresImage}`, '--set', 'mesh.postgres.storage.size=1Gi',
    '--set', `mesh.nats.image=${e.natsImage}`, '--set', 'mesh.nats.replicas=1',
  ];
}

/**
 * The rule groups the chart renders, with the faults' alerts given a short `for:` and every group
 * evaluated each EVALUATION_SECONDS (the quality group's own 5m would first run after the test ends).
 */
async function renderedRuleGroups(): Promise<unknown[]> {
  const out = await ok('helm', [
    'template', RELEASE, CHART, '-n', NS, '--kube-version', KUBE_VERSION, '--show-only', 'templates/prometheusrule.yaml',
    '--set', 'monitoring.prometheusRule.enabled=true',
    '--set', `monitoring.prometheusRule.alertFor.HyphaeEmbeddingWorkersDown=${FAULT_FOR_SECONDS}s`,
    '--set', `monitoring.prometheusRule.alertFor.HyphaeNatsDisconnected=${FAULT_FOR_SECONDS}s`,
  ]);
  const groups = (parse(out) as { spec: { groups: Record<string, unknown>[] } }).spec.groups;
  return groups.map((group) => ({ ...group, interval: `${EVALUATION_SECONDS}s` }));
}

/** A dashboard query as Grafana would send it for this mesh. */
function asGrafanaSends(expr: string): string {
  return expr.replace(/\$__rate_interval/g, '1m').replace(/\$namespace/g, NS).replace(/\$mesh/g, MESH);
}

/** One Connect-protocol call over h2c to the gRPC port (the server speaks HTTP/2 only). */
function connectCall(address: string, key: string, method: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(`http://${address}:50051`);
    session.once('error', reject);
    const request = session.request({ ':method': 'POST', ':path': `/hyphae.v1.MemoryService/${method}`, ':authority': `${API_HOST}:50051`, 'content-type': 'application/json', 'x-hyphae-key': key });
    let status = 0;
    request.once('response', (headers) => {
      status = Number(headers[':status']);
    });
    request.on('data', () => undefined);
    request.once('end', () => {
      session.close();
      resolve(status);
    });
    request.once('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe.skipIf(prometheusSkip !== undefined)('monitoring on a real Kubernetes node', () => {
  const e = env as NonNullable<typeof env>;
  let prometheus: RunningPrometheus;
  let serviceIP: string;
  let writerKey: string;
  let readerKey: string;

  const firing = async (alertname: string): Promise<PrometheusAlert[]> =>
    (await prometheus.alerts()).filter((a) => a.labels.alertname === alertname && a.labels.namespace === NS && a.state === 'firing');
  const active = async (alertname: string): Promise<PrometheusAlert[]> =>
    (await prometheus.alerts()).filter((a) => a.labels.alertname === alertname && a.labels.namespace === NS);

  /**
   * Waits for `series` series of `alertname` to fire (each process's scrape lands at its own moment, so
   * one may fire a scrape before another), and checks each went pending no later than a scrape and an
   * evaluation (plus slack) after `since`.
   */
  async function expectFiresAfter(alertname: string, since: number, series = 1): Promise<PrometheusAlert[]> {
    const alerts = await waitFor(`${alertname} firing`, async () => {
      const now = await firing(alertname);
      return now.length >= series ? now : undefined;
    }, (FAULT_FOR_SECONDS + 4 * ALERT_SLACK_SECONDS) * 1000, CLUSTER_POLL_MS);
    for (const alert of alerts) {
      const pendingAfter = (Date.parse(alert.activeAt) - since) / 1000;
      console.log(`${alertname} ${JSON.stringify(alert.labels)}: pending ${pendingAfter.toFixed(1)} s after the fault, firing from ${(pendingAfter + FAULT_FOR_SECONDS).toFixed(1)} s`);
      expect(pendingAfter, `${alertname} went pending ${pendingAfter} s after the fault`).toBeLessThanOrEqual(SCRAPE_SECONDS + EVALUATION_SECONDS + ALERT_SLACK_SECONDS);
    }
    return alerts;
  }

  beforeAll(async () => {
    await run('helm', ['uninstall', RELEASE, '-n', NS, '--wait']);
    await run('kubectl', ['delete', 'namespace', NS, '--wait=true', '--ignore-not-found']);
    await ok('helm', ['install', RELEASE, CHART, '-n', NS, '--create-namespace', '--wait', '--timeout', '10m', ...helmValues(e)]);
    prometheus = await startPrometheus({
      binary: findPrometheusBinary('prometheus') as string,
      kubeconfig: e.kubeconfig,
      namespaces: [NS],
      ruleGroups: await renderedRuleGroups(),
      scrapeIntervalSeconds: SCRAPE_SECONDS,
      evaluationIntervalSeconds: EVALUATION_SECONDS,
    });
  }, 900_000);

  afterAll(async () => {
    await run('kubectl', ['uncordon', NODE]);
    await prometheus?.stop();
    await run('helm', ['uninstall', RELEASE, '-n', NS, '--wait']);
  }, 300_000);

  it('scrapes the API pod, the worker and the operator with the labels the rules select', async () => {
    await waitFor('mesh Ready', () => meshReady(NS, MESH), 600_000, CLUSTER_POLL_MS);
    for (const job of ['hyphae-api', 'hyphae-worker', 'hyphae-operator']) {
      const up = await waitFor(`${job} scraped`, async () => {
        const series = await prometheus.query(`up{job="${job}", namespace="${NS}"} == 1`);
        return series.length > 0 ? series : undefined;
      }, 180_000, CLUSTER_POLL_MS);
      if (job !== 'hyphae-operator') expect(up[0]?.metric.mesh).toBe(MESH);
    }
  }, 900_000);

  it('serves traffic that every recording rule and every dashboard query then finds', async () => {
    serviceIP = (await kubectl('-n', NS, 'get', 'service', API_HOST, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const mesh = await kubectlJson<ClusterMesh>('-n', NS, 'get', 'hyphaemesh', MESH);
    const ref = mesh.spec.auth?.bootstrapAdminKeySecret as { name: string; key: string };
    const adminKey = Buffer.from(await kubectl('-n', NS, 'get', 'secret', ref.name, '-o', `jsonpath={.data.${ref.key}}`), 'base64').toString('utf8');
    const via = fetchVia(serviceIP, API_HOST);
    const mint = async (agent: string): Promise<string> => {
      const r = await via('http://api:8787/v1/admin/keys', { method: 'POST', headers: { 'x-hyphae-key': adminKey, 'content-type': 'application/json' }, body: JSON.stringify({ tenant: 'default', agent }) });
      expect(r.status).toBe(201);
      return ((await r.json()) as { key: string }).key;
    };
    writerKey = await mint('mon-writer');
    readerKey = await mint('mon-reader');

    // A live push (store -> diff -> the reader's open stream), an inbox drain, recalls, a gRPC call.
    const interest = 'alerts that page the on-call engineer at night';
    const pushed: string[] = [];
    const reader = await connectDiffReader(via, API_HOST, readerKey, (nodeId) => pushed.push(nodeId));
    try {
      await reader.callTool({ name: 'place_beacon', arguments: { text: interest, threshold: 0.5 } });
      await waitFor('a live push', async () => {
        await callTool(via, writerKey, 'store', { content: `${interest} (${Date.now()})`, cell_type: 'Risk', salience: 0.8 });
        await new Promise((r) => setTimeout(r, 1000));
        return pushed.length > 0 ? true : undefined;
      }, 120_000, CLUSTER_POLL_MS);
      await reader.callTool({ name: 'drain_inbox', arguments: { page_size: 100 } });
    } finally {
      await reader.close();
    }
    for (let i = 0; i < 5; i++) await callTool(via, writerKey, 'recall', { query: interest, k: 3 });
    // One judged request for the quality rules: the reader names the first hit as the truth.
    const answer = await callTool(via, readerKey, 'recall', { query: interest, k: 3 }) as { request_id: string; results: { node_id: string }[] };
    const judged = await via('http://api:8787/v1/feedback', {
      method: 'POST',
      headers: { 'x-hyphae-key': readerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: answer.request_id, rating: 'positive', ground_truth_ids: [answer.results[0]?.node_id] }),
    });
    expect(judged.status).toBe(201);
    expect(await connectCall(serviceIP, writerKey, 'Recall', { query: interest, k: 2 })).toBe(200);

    const missing = async (exprs: readonly string[]): Promise<string[]> => {
      const empty: string[] = [];
      for (const expr of exprs) if ((await prometheus.query(expr)).length === 0) empty.push(expr);
      return empty;
    };
    const records = recordedNames().map((name) => `${name}{namespace="${NS}", mesh="${MESH}"}`);
    let left = records;
    await waitFor('every recording rule returns series', async () => {
      left = await missing(records);
      return left.length === 0 ? true : undefined;
    }, 180_000, CLUSTER_POLL_MS).catch((error: unknown) => {
      throw new Error(`${String(error)}; still empty: ${left.join(', ')}`);
    });
    const queries = [...new Set(dashboardQueries().map((q) => asGrafanaSends(q.expr)))];
    let empty = queries;
    await waitFor('every dashboard query returns series', async () => {
      empty = await missing(queries);
      return empty.length === 0 ? true : undefined;
    }, 180_000, CLUSTER_POLL_MS).catch((error: unknown) => {
      throw new Error(`${String(error)}; still empty: ${empty.join('\n')}`);
    });
    console.log(`${records.length} recording rules and ${queries.length} dashboard queries return series`);
  }, 600_000);

  it('fires HyphaeEmbeddingWorkersDown when all embedding workers are scaled to 0, and resolves once one is back', async () => {
    expect(await active('HyphaeEmbeddingWorkersDown')).toEqual([]);
    await kubectl('-n', NS, 'patch', 'hyphaemesh', MESH, '--type', 'merge', '-p', '{"spec":{"workers":{"replicas":0}}}');
    await waitFor('every worker pod gone', async () => ((await pods('worker')).length === 0 ? true : undefined), 300_000, CLUSTER_POLL_MS);
    const gone = Date.now();
    const alerts = await expectFiresAfter('HyphaeEmbeddingWorkersDown', gone);
    expect(alerts.map((a) => a.labels)).toEqual([expect.objectContaining({ namespace: NS, mesh: MESH, severity: 'critical' })]);

    await kubectl('-n', NS, 'patch', 'hyphaemesh', MESH, '--type', 'merge', '-p', '{"spec":{"workers":{"replicas":1}}}');
    await waitFor('a worker ready again', async () => ((await pods('worker')).filter(podReady).length === 1 ? true : undefined), 300_000, CLUSTER_POLL_MS);
    await waitFor('HyphaeEmbeddingWorkersDown resolved', async () => ((await active('HyphaeEmbeddingWorkersDown')).length === 0 ? true : undefined), 120_000, CLUSTER_POLL_MS);
  }, 900_000);

  it('fires HyphaeNatsDisconnected when the NATS pod is deleted (and cannot come back), and resolves once it is back', async () => {
    expect(await active('HyphaeNatsDisconnected')).toEqual([]);
    // The node cordoned, the StatefulSet's new pod stays Pending: NATS stays away until uncordoned.
    await kubectl('cordon', NODE);
    try {
      await kubectl('-n', NS, 'delete', 'pod', `${MESH}-nats-0`, '--wait=true');
      const gone = Date.now();
      const alerts = await expectFiresAfter('HyphaeNatsDisconnected', gone, 2);
      // The API pod's bus and the worker's embedding connection both lost NATS.
      expect(alerts.map((a) => `${a.labels.job}/${a.labels.connection}`).sort()).toEqual(['hyphae-api/bus', 'hyphae-worker/embed']);
      expect(alerts.every((a) => a.labels.severity === 'critical' && a.labels.mesh === MESH)).toBe(true);
    } finally {
      await kubectl('uncordon', NODE);
    }
    await waitFor('NATS ready again', async () => ((await pods('nats')).filter(podReady).length === 1 ? true : undefined), 300_000, CLUSTER_POLL_MS);
    await waitFor('HyphaeNatsDisconnected resolved', async () => ((await active('HyphaeNatsDisconnected')).length === 0 ? true : undefined), 180_000, CLUSTER_POLL_MS);
  }, 900_000);
});
