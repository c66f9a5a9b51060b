// A real Prometheus (scripts/prometheus-assets.sh) for the e2e tier, run as a child process in the
// cluster's network namespace: it discovers the mesh's and the operator's pods through the API
// server with the scrape configuration docs/operations.md gives, loads rules, and answers queries.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../support/free-port.js';

export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
}

export interface PrometheusSeries {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface RunningPrometheus {
  readonly url: string;
  query(promql: string): Promise<PrometheusSeries[]>;
  alerts(): Promise<PrometheusAlert[]>;
  stop(): Promise<void>;
}

export interface PrometheusSetup {
  readonly binary: string;
  readonly kubeconfig: string;
  readonly namespaces: readonly string[];
  readonly ruleGroups: readonly unknown[];
  readonly scrapeIntervalSeconds: number;
  readonly evaluationIntervalSeconds: number;
}

/** The scrape jobs of docs/operations.md ("Without the Prometheus Operator"), confined to `namespaces`. */
export function scrapeConfigs(kubeconfig: string, namespaces: readonly string[]): unknown[] {
  const discovery = [{ role: 'pod', kubeconfig_file: kubeconfig, namespaces: { names: [...namespaces] } }];
  const identity = [
    { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
    { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
  ];
  return [
    {
      job_name: 'hyphae-mesh',
      kubernetes_sd_configs: discovery,
      relabel_configs: [
        {
          source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_managed_by', '__meta_kubernetes_pod_label_app_kubernetes_io_component', '__meta_kubernetes_pod_container_port_name'],
          regex: 'hyphae-operator;(api|worker);http',
          action: 'keep',
        },
        { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'], target_label: 'job', replacement: 'hyphae-$1' },
        { source_labels: ['__meta_kubernetes_pod_label_hyphae_dev_mesh'], target_label: 'mesh' },
        ...identity,
      ],
    },
    {
      job_name: 'hyphae-operator',
      honor_labels: true,
      kubernetes_sd_configs: discovery,
      relabel_configs: [
        {
          source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name', '__meta_kubernetes_pod_label_app_kubernetes_io_component', '__meta_kubernetes_pod_container_port_name'],
          regex: 'hyphae;operator;metrics',
          action: 'keep',
        },
        ...identity,
      ],
    },
  ];
}


async function api<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`prometheus: ${body.error ?? response.status}`);
  return body.data;
}

export async function startPrometheus(setup: PrometheusSetup): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-prometheus-'));
  const rules = join(dir, 'rules.yaml');
  writeFileSync(rules, stringify({ groups: setup.ruleGroups }));
  const config = join(dir, 'prometheus.yaml');
  writeFileSync(
    config,
    stringify({
      global: { scrape_interval: `${setup.scrapeIntervalSeconds}s`, evaluation_interval: `${setup.evaluationIntervalSeconds}s` },
      rule_files: [rules],
      scrape_configs: scrapeConfigs(setup.kubeconfig, setup.namespaces),
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    setup.binary,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = `${log}${chunk.toString()}`.slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (attempt > 120) throw new Error(`prometheus never became ready:\n${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    url,
    query: async (promql) => (await api<{ result: PrometheusSeries[] }>(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)).result,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
