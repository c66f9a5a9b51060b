import type { RunningWorker } from '../../src/worker/run-worker.js';

/** Sum of a worker metric's samples whose labels include `labels`; `x_count`/`x_sum` read histogram `x`. */
export async function metricValue(worker: RunningWorker, name: string, labels: Record<string, string> = {}): Promise<number> {
  const base = name.replace(/_(count|sum)$/, '');
  const metric = worker.metrics.registry.getSingleMetric(name) ?? worker.metrics.registry.getSingleMetric(base);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter((sample) => ((sample as { metricName?: string }).metricName ?? name) === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}
