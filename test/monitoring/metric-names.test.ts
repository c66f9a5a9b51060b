// Every PromQL expression the chart ships — recording rules, alerts, dashboard panels and
// variables — names only series that exist: those the server, the worker and the operator register
// (read from their own metric factories), the recording rules' outputs, Prometheus's `up`, and, in
// rules only, the kubelet's volume statistics; and it matches only labels those series carry.
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_SERIES, exportedSeries } from './exported-metrics.js';
import { allRules, dashboardFiles, dashboardQueries, panelsOf, readDashboard, recordedNames } from '../support/monitoring/monitoring-files.js';
import { seriesSelectors } from './promql-selectors.js';

/** What is wrong with the series an expression selects, given the known series and their labels. */
function unbackedSelectors(expr: string, known: ReadonlyMap<string, ReadonlySet<string> | 'any'>): string[] {
  return seriesSelectors(expr).flatMap(({ metric, labels }) => {
    const carried = known.get(metric);
    if (carried === undefined) return [`${metric}: no such series`];
    if (carried === 'any') return [];
    return labels.filter((l) => !carried.has(l)).map((l) => `${metric}: no label ${l}`);
  });
}

describe('series named by the monitoring rules and dashboards', () => {
  let fromCode: Map<string, ReadonlySet<string> | 'any'>;
  let withExternal: Map<string, ReadonlySet<string> | 'any'>;

  beforeAll(async () => {
    fromCode = new Map<string, ReadonlySet<string> | 'any'>(await exportedSeries());
    // A recording rule's output carries the labels its expression keeps; its own test checks them.
    for (const name of recordedNames()) fromCode.set(name, 'any');
    fromCode.set('up', new Set(EXTERNAL_SERIES.up));
    withExternal = new Map(fromCode);
    for (const [name, labels] of Object.entries(EXTERNAL_SERIES)) withExternal.set(name, new Set(labels));
  });

  it('reads the exported series from the code, histograms with their suffixes', () => {
    expect(fromCode.get('hyphae_store_duration_seconds_bucket')).toEqual(expect.any(Set));
    expect(fromCode.has('hyphae_store_duration_seconds')).toBe(false);
    expect([...(fromCode.get('hyphae_worker_requests_total') as ReadonlySet<string>)]).toEqual(expect.arrayContaining(['transport', 'outcome', 'model']));
    expect(fromCode.has('hyphae_operator_leader')).toBe(true);
    // The checker reports a misspelt series and a label the series does not carry.
    expect(unbackedSelectors('rate(hyphae_stores_total[5m]) / hyphae_outbox_lag_seconds{tool="store"}', fromCode)).toEqual([
      'hyphae_stores_total: no such series',
      'hyphae_outbox_lag_seconds: no label tool',
    ]);
  });

  it('every rule expression selects existing series and labels', () => {
    const problems = allRules().flatMap((r) => unbackedSelectors(r.expr, withExternal).map((p) => `${r.record ?? r.alert}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('every dashboard query selects series the server, worker or operator export, or recording rules', () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(40);
    const problems = queries.flatMap((q) => unbackedSelectors(q.expr, fromCode).map((p) => `${q.dashboard} ${q.where}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('ships the four dashboards, each panel with a unique id and every target with a query', () => {
    expect(dashboardFiles()).toEqual(['hyphae-gossip.json', 'hyphae-operator.json', 'hyphae-overview.json', 'hyphae-storage-embedding.json']);
    const uids = new Set<string>();
    for (const file of dashboardFiles()) {
      const dashboard = readDashboard(file);
      expect(file).toBe(`${dashboard.uid}.json`);
      uids.add(dashboard.uid);
      const panels = panelsOf(dashboard);
      const ids = panels.map((p) => (p as { id?: number }).id);
      expect(new Set(ids).size, `${file}: panel ids`).toBe(ids.length);
      for (const panel of panels.filter((p) => p.type !== 'row')) {
        expect(panel.targets?.length, `${file}: ${panel.title ?? '?'}`).toBeGreaterThan(0);
        for (const t of panel.targets ?? []) expect(t.expr, `${file}: ${panel.title ?? '?'}`).toMatch(/\S/);
      }
      expect(dashboard.templating.list.map((v) => v.name)).toContain('datasource');
    }
    expect(uids.size).toBe(4);
  });
});
