// The monitoring files the chart ships (charts/hyphae/files/): the rule groups and the Grafana
// dashboards, with every PromQL expression they hold.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const RULES_FILE = join(REPO_ROOT, 'charts', 'hyphae', 'files', 'prometheus-rules.yaml');
export const DASHBOARDS_DIR = join(REPO_ROOT, 'charts', 'hyphae', 'files', 'dashboards');
export const RUNBOOKS_DIR = join(REPO_ROOT, 'docs', 'runbooks');

export interface PrometheusRule {
  readonly record?: string;
  readonly alert?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export interface RuleGroup {
  readonly name: string;
  readonly interval?: string;
  readonly rules: readonly PrometheusRule[];
}

export function ruleGroups(): RuleGroup[] {
  return (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
}

export const allRules = (): PrometheusRule[] => ruleGroups().flatMap((g) => g.rules);
export const alertRules = (): PrometheusRule[] => allRules().filter((r) => r.alert !== undefined);
export const recordedNames = (): string[] => allRules().flatMap((r) => (r.record === undefined ? [] : [r.record]));

/** HyphaeApiDown → hyphae-api-down: the name of its runbook page. */
export function runbookSlug(alert: string): string {
  return alert.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

export interface DashboardQuery {
  readonly dashboard: string;
  readonly where: string;
  readonly expr: string;
}

interface DashboardPanel {
  readonly title?: string;
  readonly type?: string;
  readonly targets?: ReadonlyArray<{ readonly expr?: string; readonly refId?: string }>;
  readonly panels?: readonly DashboardPanel[];
}

interface DashboardVariable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query?: string };
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly DashboardVariable[] };
}

export function dashboardFiles(): string[] {
  return readdirSync(DASHBOARDS_DIR).filter((f) => f.endsWith('.json')).sort();
}

export function readDashboard(file: string): Dashboard {
  return JSON.parse(readFileSync(join(DASHBOARDS_DIR, file), 'utf8')) as Dashboard;
}

/** Panels, row panels' children included. */
export function panelsOf(dashboard: Dashboard): DashboardPanel[] {
  const walk = (panels: readonly DashboardPanel[]): DashboardPanel[] => panels.flatMap((p) => [p, ...walk(p.panels ?? [])]);
  return walk(dashboard.panels);
}

const LABEL_VALUES = /^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/;

/** Every PromQL expression of every dashboard: panel targets and the selectors of query variables. */
export function dashboardQueries(): DashboardQuery[] {
  return dashboardFiles().flatMap((file) => {
    const dashboard = readDashboard(file);
    const targets = panelsOf(dashboard).flatMap((panel) =>
      (panel.targets ?? []).map((t) => ({ dashboard: file, where: `panel "${panel.title ?? '?'}" ${t.refId ?? ''}`, expr: t.expr ?? '' })),
    );
    const variables = dashboard.templating.list
      .filter((v) => v.type === 'query')
      .map((v) => {
        const query = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
        const [, selector, label] = LABEL_VALUES.exec(query) ?? [];
        if (selector === undefined || label === undefined) throw new Error(`${file}: variable ${v.name} is not label_values(selector, label): ${query}`);
        // The label whose values it lists must be one the series carries: a matcher on it says so.
        const expr = selector.endsWith('}') ? `${selector.slice(0, -1)}, ${label}!=""}` : `${selector}{${label}!=""}`;
        return { dashboard: file, where: `variable ${v.name}`, expr };
      });
    return [...targets, ...variables];
  });
}
