import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../support/prometheus-text.js';
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
    metrics.trackDbPool(() => ({ total: 5, idle: 2, waiting: 1, max: 10, acquireTimeouts: 0 }));
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

  it('exports every series of a bounded label set from the first scrape on, at zero', async () => {
    const families = parsePrometheusText(await createHyphaeMetrics().render());
    const labelsOf = (name: string): Array<Record<string, string>> => (families.get(name)?.samples ?? []).map((s) => s.labels);
    expect(labelsOf('hyphae_diffs_delivered_total').map((l) => l.transport).sort()).toEqual(['bus', 'grpc', 'inbox', 'pull', 'sse']);
    expect(labelsOf('hyphae_live_streams_dropped_total')).toHaveLength(4);
    expect(labelsOf('hyphae_embed_errors_total')).toEqual([{ code: 'UNAVAILABLE' }]);
    expect(families.get('hyphae_diff_push_delay_seconds')?.type).toBe('histogram');
    expect((families.get('hyphae_live_streams_dropped_total')?.samples ?? []).every((s) => s.value === 0)).toBe(true);
    // Nothing tracked yet: no readiness and no NATS series (an embedded server has no NATS).
    expect(families.get('hyphae_ready')?.samples ?? []).toEqual([]);
    expect(families.get('hyphae_nats_connected')?.samples ?? []).toEqual([]);
  });

  it('samples the pool, readiness and NATS at scrape time', async () => {
    const metrics = createHyphaeMetrics();
    let pool = { total: 10, idle: 0, waiting: 4, max: 10, acquireTimeouts: 3 };
    metrics.trackDbPool(() => pool);
    let databaseUp = true;
    let connected = true;
    metrics.trackReadiness(
      [
        { name: 'database', check: () => (databaseUp ? Promise.resolve() : Promise.reject(new Error('down'))) },
        // A check that never answers counts as failing once the timeout passes.
        { name: 'nats', check: () => (connected ? Promise.resolve() : new Promise<void>(() => undefined)) },
      ],
      50,
    );
    metrics.trackNatsConnection('bus', () => connected);
    const scrape = async (): Promise<Map<string, number>> => {
      const families = parsePrometheusText(await metrics.render());
      const values = new Map<string, number>();
      for (const name of ['hyphae_ready', 'hyphae_nats_connected', 'hyphae_db_pool_max_connections', 'hyphae_db_acquire_timeouts_total']) {
        for (const s of families.get(name)?.samples ?? []) values.set(`${name}${JSON.stringify(s.labels)}`, s.value);
      }
      return values;
    };
    expect(Object.fromEntries(await scrape())).toEqual({
      'hyphae_ready{"check":"database"}': 1,
      'hyphae_ready{"check":"nats"}': 1,
      'hyphae_nats_connected{"connection":"bus"}': 1,
      'hyphae_db_pool_max_connections{}': 10,
      'hyphae_db_acquire_timeouts_total{}': 3,
    });
    databaseUp = false;
    connected = false;
    pool = { ...pool, acquireTimeouts: 5 };
    expect(Object.fromEntries(await scrape())).toEqual({
      'hyphae_ready{"check":"database"}': 0,
      'hyphae_ready{"check":"nats"}': 0,
      'hyphae_nats_connected{"connection":"bus"}': 0,
      'hyphae_db_pool_max_connections{}': 10,
      'hyphae_db_acquire_timeouts_total{}': 5,
    });
  });

  it('counts embed errors by code and observes push delays', async () => {
    const metrics = createHyphaeMetrics();
    metrics.countEmbedError('UNAVAILABLE');
    metrics.countEmbedError('INVALID_ARGUMENT');
    metrics.observeDiffPushDelay(0.3);
    metrics.observeDiffPushDelay(-0.01);
    const families = parsePrometheusText(await metrics.render());
    expect(Object.fromEntries((families.get('hyphae_embed_errors_total')?.samples ?? []).map((s) => [s.labels.code, s.value]))).toEqual({ UNAVAILABLE: 1, INVALID_ARGUMENT: 1 });
    const buckets = (families.get('hyphae_diff_push_delay_seconds')?.samples ?? []).filter((s) => s.name.endsWith('_bucket'));
    // The clock-skewed negative delay counts as 0 s.
    expect(buckets.find((b) => b.labels.le === '0.01')?.value).toBe(1);
    expect(buckets.find((b) => b.labels.le === '0.5')?.value).toBe(2);
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
