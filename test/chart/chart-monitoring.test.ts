// The chart's monitoring objects through the real `helm`: the PrometheusRule renders exactly the
// rule groups of files/prometheus-rules.yaml (and passes promtool) with the values' overrides
// applied; one dashboard ConfigMap per JSON file, labelled for the Grafana sidecar; the PodMonitor
// and the operator's ServiceMonitor give the series the labels the rules select.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { findPrometheusBinary, prometheusSkipReason } from '../support/monitoring/monitoring-assets.js';
import { DASHBOARDS_DIR, RULES_FILE, dashboardFiles, runbookSlug } from '../support/monitoring/monitoring-files.js';
import type { RuleGroup } from '../support/monitoring/monitoring-files.js';
import { ciValues, findObject, helmSkipReason, renderChart, runHelm, valueArgs, CHART_DIR, KUBE_VERSION } from '../support/k8s/helm.js';
import type { RenderedObject } from '../support/k8s/helm.js';

const skip = helmSkipReason();
const promtoolSkip = skip === undefined ? prometheusSkipReason('promtool') : skip;
const fileGroups = (): RuleGroup[] => (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
const groupsOf = (o: RenderedObject | undefined): RuleGroup[] => (o?.spec as { groups: RuleGroup[] }).groups;
const alertsOf = (groups: readonly RuleGroup[], name: string): RuleGroup['rules'][number][] => groups.flatMap((g) => g.rules).filter((r) => r.alert === name);

function promtoolCheck(groups: readonly RuleGroup[]): Promise<{ code: number; output: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'hyphae-rules-')), 'rendered-rules.yaml');
  writeFileSync(file, stringify({ groups }));
  return new Promise((resolve) => {
    execFile(findPrometheusBinary('promtool') as string, ['check', 'rules', file], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe.skipIf(skip !== undefined)('the chart’s monitoring', () => {
  it('renders none of it by default', async () => {
    const kinds = (await renderChart([], { 'mesh.enabled': true })).map((o) => o.kind);
    for (const kind of ['PrometheusRule', 'PodMonitor', 'ServiceMonitor', 'ConfigMap']) expect(kinds).not.toContain(kind);
  });

  it('renders the rules file unchanged as a PrometheusRule', async () => {
    const objects = await renderChart([], { 'monitoring.prometheusRule.enabled': true }, { namespace: 'team-memory' });
    const rule = findObject(objects, 'PrometheusRule');
    expect(rule?.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule?.metadata).toMatchObject({ name: 'hyphae', namespace: 'team-memory' });
    expect(groupsOf(rule)).toEqual(fileGroups());
  });

  it.skipIf(promtoolSkip !== undefined)('renders rules promtool accepts, with every override applied', async () => {
    const objects = await renderChart([ciValues('mesh-cnpg-monitoring-values.yaml')], { 'monitoring.prometheusRule.alertFor.HyphaeApiDown': '1m30s' });
    const check = await promtoolCheck(groupsOf(findObject(objects, 'PrometheusRule')));
    expect(check.code, check.output).toBe(0);
    expect(check.output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('applies the per-alert for:, extra alert labels, disabled alerts, runbook base and selection labels', async () => {
    const objects = await renderChart([], {
      'monitoring.prometheusRule.enabled': true,
      'monitoring.prometheusRule.namespace': 'monitoring',
      'monitoring.prometheusRule.labels.release': 'kube-prometheus-stack',
      'monitoring.prometheusRule.alertFor.HyphaeEmbeddingWorkersDown': '20s',
      'monitoring.prometheusRule.alertLabels.team': 'memory',
      'monitoring.prometheusRule.alertLabels.severity': 'info',
      'monitoring.prometheusRule.disabledAlerts[0]': 'HyphaeOperatorNoLeader',
      'monitoring.prometheusRule.runbookBaseUrl': 'https://runbooks.example.com/hyphae/',
    });
    const rule = findObject(objects, 'PrometheusRule');
    expect(rule?.metadata.namespace).toBe('monitoring');
    expect(rule?.metadata.labels?.release).toBe('kube-prometheus-stack');
    const groups = groupsOf(rule);
    expect(alertsOf(groups, 'HyphaeEmbeddingWorkersDown').map((r) => r.for)).toEqual(['20s']);
    expect(alertsOf(groups, 'HyphaeApiDown').map((r) => r.for)).toEqual(['5m']);
    expect(alertsOf(groups, 'HyphaeOperatorNoLeader')).toEqual([]);
    for (const alert of groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined)) {
      // The rule's own severity wins over an extra label of the same name.
      expect(alert.labels).toMatchObject({ team: 'memory', severity: expect.stringMatching(/^(critical|warning)$/) });
      expect(alert.annotations?.runbook_url).toBe(`https://runbooks.example.com/hyphae/${runbookSlug(alert.alert as string)}.md`);
    }
    // Recording rules are left as they are.
    expect(groups.flatMap((g) => g.rules).filter((r) => r.record !== undefined)).toEqual(fileGroups().flatMap((g) => g.rules).filter((r) => r.record !== undefined));
  });

  it('renders one ConfigMap per dashboard, labelled for the Grafana sidecar, holding the file as it is', async () => {
    const objects = await renderChart([ciValues('mesh-cnpg-monitoring-values.yaml')]);
    const maps = objects.filter((o) => o.kind === 'ConfigMap');
    expect(maps.map((m) => m.metadata.name).sort()).toEqual(['hyphae-dashboard-gossip', 'hyphae-dashboard-operator', 'hyphae-dashboard-overview', 'hyphae-dashboard-storage-embedding']);
    for (const file of dashboardFiles()) {
      const map = maps.find((m) => (m.data as Record<string, string>)[file] !== undefined);
      expect(map, file).toBeDefined();
      expect(map?.metadata.labels?.grafana_dashboard).toBe('1');
      expect(map?.metadata.annotations).toEqual({ grafana_folder: 'Hyphae' });
      expect((map?.data as Record<string, string>)[file]).toBe(readFileSync(join(DASHBOARDS_DIR, file), 'utf8').trimEnd());
    }
    const custom = await renderChart([], {
      'monitoring.dashboards.enabled': true,
      'monitoring.dashboards.namespace': 'grafana',
      'monitoring.dashboards.sidecarLabel': 'dashboards.example.com/grafana',
      'monitoring.dashboards.sidecarLabelValue': 'hyphae',
    });
    for (const map of custom.filter((o) => o.kind === 'ConfigMap')) {
      expect(map.metadata.namespace).toBe('grafana');
      expect(map.metadata.labels?.['dashboards.example.com/grafana']).toBe('hyphae');
      expect(map.metadata.labels?.grafana_dashboard).toBeUndefined();
    }
  });

  it('scrapes the mesh pods with the labels the rules select, and lets the scrapers through the mesh NetworkPolicies', async () => {
    const objects = await renderChart([ciValues('mesh-cnpg-monitoring-values.yaml')]);
    const monitor = findObject(objects, 'PodMonitor');
    const spec = monitor?.spec as {
      namespaceSelector: unknown;
      selector: { matchLabels: Record<string, string>; matchExpressions: unknown[] };
      podMetricsEndpoints: Array<{ port: string; path: string; relabelings: Array<Record<string, unknown>> }>;
    };
    expect(monitor?.metadata.labels?.release).toBe('prometheus');
    expect(spec.namespaceSelector).toEqual({ any: true });
    expect(spec.selector).toEqual({
      matchLabels: { 'app.kubernetes.io/name': 'hyphae', 'app.kubernetes.io/managed-by': 'hyphae-operator' },
      matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['api', 'worker'] }],
    });
    expect(spec.podMetricsEndpoints).toEqual([
      {
        port: 'http',
        path: '/metrics',
        interval: '30s',
        relabelings: [
          { sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'], targetLabel: 'job', replacement: 'hyphae-$1' },
          { sourceLabels: ['__meta_kubernetes_pod_label_hyphae_dev_mesh'], targetLabel: 'mesh' },
        ],
      },
    ]);
    const scrapes = findObject(objects, 'NetworkPolicy', 'hyphae-mesh-scrapes');
    expect(scrapes?.spec).toMatchObject({
      podSelector: spec.selector,
      ingress: [{ ports: [{ port: 'http', protocol: 'TCP' }], from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }] }],
    });
    const operatorMonitor = findObject(objects, 'ServiceMonitor');
    const endpoint = (operatorMonitor?.spec as { endpoints: Array<{ relabelings: unknown[]; honorLabels: boolean }> }).endpoints[0];
    expect(endpoint?.relabelings).toEqual([{ targetLabel: 'job', replacement: 'hyphae-operator' }]);
    // The mesh condition series keep their mesh's namespace.
    expect(endpoint?.honorLabels).toBe(true);

    // Confined to the operator's namespace, or to the namespaces named; no scrape policy unless asked.
    const confined = await renderChart([], { 'monitoring.podMonitor.enabled': true, 'operator.watchNamespace': 'team-memory' });
    expect((findObject(confined, 'PodMonitor')?.spec as { namespaceSelector: unknown }).namespaceSelector).toEqual({ matchNames: ['team-memory'] });
    expect(findObject(confined, 'NetworkPolicy', 'hyphae-mesh-scrapes')).toBeUndefined();
    const named = await renderChart([], { 'monitoring.podMonitor.enabled': true, 'monitoring.podMonitor.namespaces[0]': 'a', 'monitoring.podMonitor.namespaces[1]': 'b' });
    expect((findObject(named, 'PodMonitor')?.spec as { namespaceSelector: unknown }).namespaceSelector).toEqual({ matchNames: ['a', 'b'] });
  });

  it('rejects bad monitoring values through values.schema.json', async () => {
    const cases: Array<[Record<string, string | boolean>, string]> = [
      [{ 'monitoring.prometheusRule.alertFor.HyphaeApiDown': 'soon' }, "at '/monitoring/prometheusRule/alertFor/HyphaeApiDown'"],
      [{ 'monitoring.prometheusRule.alertFor.HyphaeApiDownn': '1m' }, "'HyphaeApiDownn'"],
      [{ 'monitoring.prometheusRule.disabledAlerts[0]': 'HyphaeApiDownn' }, "at '/monitoring/prometheusRule/disabledAlerts/0'"],
      [{ 'monitoring.dashboards.sidecarLabel': '' }, "at '/monitoring/dashboards/sidecarLabel'"],
      [{ 'monitoring.podMonitor.interval': 'often' }, "at '/monitoring/podMonitor/interval'"],
      [{ 'monitoring.grafana': true }, "at '/monitoring': additional properties 'grafana' not allowed"],
    ];
    for (const [set, message] of cases) {
      const r = await runHelm(['template', 'x', CHART_DIR, '--kube-version', KUBE_VERSION, ...valueArgs([], set)]);
      expect(r.code, JSON.stringify(set)).not.toBe(0);
      expect(r.stderr, JSON.stringify(set)).toContain(message);
    }
  });
});
