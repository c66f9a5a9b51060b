// What the server, the embedding worker and the operator actually export, read from the registries
// their own factories build: each series name (histograms as _bucket, _sum and _count) with the
// label names it can carry, plus the labels a scrape adds (docs/operations.md).
import type { Registry } from 'prom-client';
import { createOperatorMetrics } from '../../operator/src/runtime/operator-metrics.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import { createWorkerMetrics } from '../../src/worker/worker-metrics.js';

/** Labels every Hyphae target carries once scraped. */
export const TARGET_LABELS: readonly string[] = ['job', 'instance', 'namespace', 'pod', 'mesh'];

/** Series Prometheus or the kubelet produce, which the rules may use: name → label names. */
export const EXTERNAL_SERIES: Readonly<Record<string, readonly string[]>> = {
  up: TARGET_LABELS,
  kubelet_volume_stats_available_bytes: ['namespace', 'persistentvolumeclaim', 'node', 'job', 'instance'],
  kubelet_volume_stats_capacity_bytes: ['namespace', 'persistentvolumeclaim', 'node', 'job', 'instance'],
};

interface LabelledMetric {
  readonly name: string;
  readonly labelNames?: readonly string[];
}

/** Series name → the label names it may carry, for every metric of the three processes. */
export async function exportedSeries(): Promise<Map<string, ReadonlySet<string>>> {
  const registries = [createHyphaeMetrics().registry, createWorkerMetrics('model-under-test').registry, createOperatorMetrics({ processMetrics: true }).registry];
  const series = new Map<string, ReadonlySet<string>>();
  for (const registry of registries) {
    const defaults = await defaultLabels(registry);
    for (const json of await registry.getMetricsAsJSON()) {
      const metric = registry.getSingleMetric(json.name) as unknown as LabelledMetric;
      const labels = [...TARGET_LABELS, ...defaults, ...(metric.labelNames ?? [])];
      const type = String(json.type);
      if (type === 'histogram') {
        series.set(`${json.name}_bucket`, new Set([...labels, 'le']));
        series.set(`${json.name}_sum`, new Set(labels));
        series.set(`${json.name}_count`, new Set(labels));
      } else if (type === 'summary') {
        series.set(json.name, new Set([...labels, 'quantile']));
        series.set(`${json.name}_sum`, new Set(labels));
        series.set(`${json.name}_count`, new Set(labels));
      } else {
        series.set(json.name, new Set(labels));
      }
    }
  }
  return series;
}

/** Labels a registry puts on every series (setDefaultLabels): on sampled values, declared by no metric. */
async function defaultLabels(registry: Registry): Promise<string[]> {
  const metrics = await registry.getMetricsAsJSON();
  const declared = new Set(metrics.flatMap((m) => (registry.getSingleMetric(m.name) as unknown as LabelledMetric).labelNames ?? []));
  const seen = new Set(metrics.flatMap((m) => m.values.flatMap((v) => Object.keys(v.labels))));
  return [...seen].filter((label) => !declared.has(label) && label !== 'le' && label !== 'quantile');
}
