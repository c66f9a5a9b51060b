import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../http/support/prometheus-text.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';

describe('createHyphaeMetrics', () => {
  it('exports every family with its type, and process metrics, from a fresh registry', async () => {
    const metrics = createHyphaeMetrics();
    metrics.observeHttpRequest('GET', '/v1/cells/:id', 200, 0.004);
    metrics.observeMcpCall('store', 'ok', 0.01);
    metrics.observeStore(0.01);
    metrics.observeRecall(0.02);
    metrics.observeEmbed(0.003, 4);
    metrics.countDiffsProduced(3);
    metrics.countDiffsDelivered('sse', 2);
    metrics.setOutboxLag(1.5);
    metrics.addLiveStreams(2);
    metrics.addLiveStreams(-1);
    metrics.trackDbPool(() => ({ total: 5, idle: 2, waiting: 1 }));
    const families = parsePrometheusText(await metrics.render());
    const typeOf = (name: string): string | undefined => families.get(name)?.type;
    expect(typeOf('http_request_duration_seconds')).toBe('histogram');
    expect(typeOf('hyphae_mcp_calls_total')).toBe('counter');
    expect(typeOf('hyphae_mcp_call_duration_seconds')).toBe('histogram');
    expect(typeOf('hyphae_store_duration_seconds')).toBe('histogram');
    expect(typeOf('hyphae_recall_duration_seconds')).toBe('histogram');
    expect(typeOf('hyphae_embed_duration_seconds')).toBe('histogram');
    expect(typeOf('hyphae_embed_batch_size')).toBe('histogram');
    expect(typeOf('hyphae_diffs_produced_total')).toBe('counter');
    expect(typeOf('hyphae_diffs_delivered_total')).toBe('counter');
    expect(typeOf('hyphae_outbox_lag_seconds')).toBe('gauge');
    expect(typeOf('hyphae_live_streams')).toBe('gauge');
    expect(typeOf('hyphae_db_pool_connections')).toBe('gauge');
    expect(typeOf('process_cpu_seconds_total')).toBe('counter');

    const pool = families.get('hyphae_db_pool_connections')?.samples ?? [];
    expect(Object.fromEntries(pool.map((s) => [s.labels.state, s.value]))).toEqual({ in_use: 3, idle: 2, waiting: 1 });
    expect(families.get('hyphae_live_streams')?.samples[0]?.value).toBe(1);
    expect(families.get('hyphae_diffs_produced_total')?.samples[0]?.value).toBe(3);
    const count = families.get('http_request_duration_seconds')?.samples.find((s) => s.name === 'http_request_duration_seconds_count');
    expect(count?.labels).toEqual({ method: 'GET', route: '/v1/cells/:id', status: '200' });
  });

  it('folds unknown MCP tool names into one label value', async () => {
    const metrics = createHyphaeMetrics();
    metrics.observeMcpCall('no-such-tool-4711', 'error', 0.001);
    const calls = parsePrometheusText(await metrics.render()).get('hyphae_mcp_calls_total')?.samples ?? [];
    expect(calls.map((s) => s.labels)).toEqual([{ tool: 'unknown', outcome: 'error' }]);
  });

  it('keeps registries of two instances apart', async () => {
    const a = createHyphaeMetrics();
    const b = createHyphaeMetrics();
    a.countDiffsProduced(5);
    const bFamilies = parsePrometheusText(await b.render());
    expect(bFamilies.get('hyphae_diffs_produced_total')?.samples[0]?.value).toBe(0);
  });
});

describe('parsePrometheusText', () => {
  it('rejects what Prometheus would reject', () => {
    expect(() => parsePrometheusText('x_total 1')).toThrow(/newline/);
    expect(() => parsePrometheusText('orphan 1\n')).toThrow(/no declared family/);
    expect(() => parsePrometheusText('# TYPE a counter\na{l="x} 1\n')).toThrow();
    expect(() => parsePrometheusText('# TYPE a counter\na one\n')).toThrow(/bad value/);
  });
});
