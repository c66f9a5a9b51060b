/**
 * Scrapes `/metrics` after REST and MCP traffic and parses it strictly: every family of issue 5 is
 * exported, request durations are labelled by route pattern (never a raw URL or an id).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, type MetricFamily } from '../support/prometheus-text.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

const FAMILIES = [
  'http_request_duration_seconds',
  'hyphae_mcp_calls_total',
  'hyphae_mcp_call_duration_seconds',
  'hyphae_store_duration_seconds',
  'hyphae_recall_duration_seconds',
  'hyphae_embed_duration_seconds',
  'hyphae_embed_batch_size',
  'hyphae_diffs_produced_total',
  'hyphae_diffs_delivered_total',
  'hyphae_outbox_lag_seconds',
  'hyphae_live_streams',
  'hyphae_db_pool_connections',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let t: HttpTestApp;
let families: Map<string, MetricFamily>;

beforeAll(async () => {
  t = await createHttpTestApp();
  t.metrics.trackDbPool(() => t.runtime.db.poolStats());
  const { key } = await t.runtime.mintKey({ tenant: 'tenant-zeta', agent: 'alice' });
  const headers = { 'x-hyphae-key': key, 'content-type': 'application/json' };
  const stored = await t.app.inject({ method: 'POST', url: '/v1/cells', headers, payload: JSON.stringify({ content: 'metrics matter', cell_type: 'Fact' }) });
  expect(stored.statusCode).toBe(201);
  await t.app.inject({ method: 'GET', url: `/v1/cells/${stored.json().node_id as string}`, headers: { 'x-hyphae-key': key } });
  await t.app.inject({ method: 'GET', url: `/v1/cells/${randomUUID()}`, headers: { 'x-hyphae-key': key } });
  await t.app.inject({ method: 'POST', url: '/v1/recall', headers, payload: JSON.stringify({ query: 'metrics' }) });
  await t.app.inject({ method: 'GET', url: `/no/such/${randomUUID()}` });
  const mcp = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, accept: 'application/json' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'recall', arguments: { query: 'metrics' } } }),
  });
  expect(mcp.statusCode).toBe(200);
  const scrape = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(scrape.statusCode).toBe(200);
  expect(scrape.headers['content-type']).toContain('text/plain');
  families = parsePrometheusText(scrape.body);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /metrics after traffic', () => {
  it.each(FAMILIES)('exports %s', (name) => {
    expect(families.has(name), [...families.keys()].join(', ')).toBe(true);
  });

  it('labels request durations by route pattern and status, never by raw URL', () => {
    const counts = families.get('http_request_duration_seconds')?.samples.filter((s) => s.name === 'http_request_duration_seconds_count') ?? [];
    const seen = counts.map((s) => `${s.labels.method} ${s.labels.route} ${s.labels.status}`);
    expect(seen).toEqual(
      expect.arrayContaining(['POST /v1/cells 201', 'GET /v1/cells/:id 200', 'GET /v1/cells/:id 404', 'POST /v1/recall 200', 'GET unmatched 404', 'POST /mcp 200']),
    );
  });

  it('has no id, key or tenant in any label value', () => {
    for (const family of families.values()) {
      for (const sample of family.samples) {
        for (const value of Object.values(sample.labels)) {
          expect(value, `${sample.name}`).not.toMatch(UUID);
          expect(value).not.toMatch(/^hy_|tenant-zeta/);
        }
      }
    }
  });

  it('samples the database pool at scrape time', () => {
    const states = families.get('hyphae_db_pool_connections')?.samples.map((s) => s.labels.state).sort();
    expect(states).toEqual(['idle', 'in_use', 'waiting']);
  });
});
