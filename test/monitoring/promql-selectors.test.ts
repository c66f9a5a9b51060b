import { describe, expect, it } from 'vitest';
import { seriesSelectors } from './promql-selectors.js';

describe('seriesSelectors', () => {
  it('finds each selector with its matched labels, not functions, aggregations, keywords or grouping labels', () => {
    const expr = `sum by (namespace, mesh) (rate(http_request_duration_seconds_count{job="hyphae-api", route=~"/mcp|/v1/.+", status!~"5.."}[5m]))
      / on (namespace) group_left (mesh) max without (pod) (hyphae:api_requests:rate5m) unless ignoring (le) up offset 1h and bool 1`;
    expect(seriesSelectors(expr)).toEqual([
      { metric: 'http_request_duration_seconds_count', labels: ['job', 'route', 'status'] },
      { metric: 'hyphae:api_requests:rate5m', labels: [] },
      { metric: 'up', labels: [] },
    ]);
  });

  it('reads strings as strings, ranges and subqueries as durations, and Grafana intervals', () => {
    expect(
      seriesSelectors(
        'label_replace(a{x="sum by (y) (b)"} / c, "mesh", "$1", "pvc", "data-(.+)") < 0.05 and predict_linear(d[6h:1m], 4 * 24 * 3600) > 1e3 or histogram_quantile(0.99, sum by (le) (rate(e_bucket{le=~"1|1\\\\.0"}[$__rate_interval])))',
      ),
    ).toEqual([
      { metric: 'a', labels: ['x'] },
      { metric: 'c', labels: [] },
      { metric: 'd', labels: [] },
      { metric: 'e_bucket', labels: ['le'] },
    ]);
    expect(seriesSelectors('topk(3, sum without (pod) (f))')).toEqual([{ metric: 'f', labels: [] }]);
  });

  it('refuses what it cannot read rather than miss a series', () => {
    expect(() => seriesSelectors('{__name__="up"}')).toThrow(/without a metric name/);
    expect(() => seriesSelectors('up{job}')).toThrow(/label matcher it cannot read/);
    expect(() => seriesSelectors('up{job="a"')).toThrow(/unclosed/);
  });
});
