// The chart's Prometheus rules under the real promtool (built by scripts/prometheus-assets.sh):
// `promtool check rules` on files/prometheus-rules.yaml and on every dashboard query, and
// `promtool test rules` on the unit tests beside this file, which make every alert fire and stay
// silent; and every alert's runbook page.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { REPO_ROOT, RULES_FILE, RUNBOOKS_DIR, alertRules, allRules, dashboardQueries, runbookSlug } from '../support/monitoring/monitoring-files.js';
import { findPrometheusBinary, prometheusSkipReason } from '../support/monitoring/monitoring-assets.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const UNIT_TEST_FILES = readdirSync(HERE).filter((f) => f.endsWith('.test.yaml')).sort();
const skip = prometheusSkipReason('promtool');

interface AlertRuleTest {
  alertname: string;
  exp_alerts?: Array<{ exp_labels?: Record<string, string> }>;
}
interface UnitTestFile {
  rule_files: string[];
  tests: Array<{ name: string; alert_rule_test?: AlertRuleTest[] }>;
}

function promtool(args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(findPrometheusBinary('promtool') as string, [...args], { cwd: HERE }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const unitTests = (): UnitTestFile[] => UNIT_TEST_FILES.map((f) => parse(readFileSync(join(HERE, f), 'utf8')) as UnitTestFile);
const alertNames = (): string[] => [...new Set(alertRules().map((r) => r.alert as string))];

describe.skipIf(skip !== undefined)('the Prometheus rules under promtool', () => {
  it('pass promtool check rules', async () => {
    const r = await promtool(['check', 'rules', RULES_FILE]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain(`SUCCESS: ${allRules().length} rules found`);
  });

  it('leave no dashboard query that Prometheus cannot parse', async () => {
    // Each query, its Grafana interval variables made a duration, as a recording rule promtool reads.
    const groups = [{ name: 'dashboards', rules: dashboardQueries().map((q, i) => ({ record: `dashboard:query:${i}`, expr: q.expr.replace(/\$__rate_interval/g, '5m') })) }];
    const file = join(mkdtempSync(join(tmpdir(), 'hyphae-dashboards-')), 'dashboard-queries.yaml');
    writeFileSync(file, stringify({ groups }));
    const r = await promtool(['check', 'rules', file]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain(`SUCCESS: ${groups[0]?.rules.length ?? 0} rules found`);
  });

  it('pass every promtool unit test', async () => {
    expect(UNIT_TEST_FILES.length).toBeGreaterThan(0);
    const r = await promtool(['test', 'rules', ...UNIT_TEST_FILES]);
    expect(r.code, r.output).toBe(0);
    expect(r.output.match(/SUCCESS/g)).toHaveLength(UNIT_TEST_FILES.length);
  });
});

describe('the alerts', () => {
  it('are unit-tested firing at every severity and staying silent', () => {
    const cases = unitTests().flatMap((f) => f.tests.flatMap((t) => t.alert_rule_test ?? []));
    const gaps = alertNames().flatMap((alert) => {
      const mine = cases.filter((c) => c.alertname === alert);
      const fired = new Set(mine.flatMap((c) => (c.exp_alerts ?? []).map((a) => a.exp_labels?.severity)));
      const severities = new Set(alertRules().filter((r) => r.alert === alert).map((r) => r.labels?.severity));
      return [
        ...[...severities].filter((s) => !fired.has(s)).map((s) => `${alert}: never expected firing at severity ${String(s)}`),
        ...(mine.some((c) => (c.exp_alerts ?? []).length === 0) ? [] : [`${alert}: never expected silent`]),
      ];
    });
    expect(gaps).toEqual([]);
    // Every unit test file reads the chart's rules file itself.
    for (const f of unitTests()) expect(f.rule_files.map((p) => join(HERE, p))).toEqual([RULES_FILE]);
  });

  it('carry a severity, summary, description and the runbook page of their name', () => {
    const values = parse(readFileSync(join(REPO_ROOT, 'charts', 'hyphae', 'values.yaml'), 'utf8')) as { monitoring: { prometheusRule: { runbookBaseUrl: string } } };
    const base = values.monitoring.prometheusRule.runbookBaseUrl;
    for (const rule of alertRules()) {
      const alert = rule.alert as string;
      expect(['critical', 'warning'], alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, alert).toMatch(/\S/);
      expect(rule.annotations?.description, alert).toMatch(/\S/);
      expect(rule.annotations?.runbook_url, alert).toBe(`${base}/${runbookSlug(alert)}.md`);
    }
  });

  it('are the names values.schema.json accepts in alertFor and disabledAlerts', () => {
    interface Schema {
      properties: { monitoring: { properties: { prometheusRule: { properties: { alertFor: { propertyNames: { enum: string[] } }; disabledAlerts: { items: { enum: string[] } } } } } } };
    }
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'charts', 'hyphae', 'values.schema.json'), 'utf8')) as Schema;
    const rule = schema.properties.monitoring.properties.prometheusRule.properties;
    expect(rule.alertFor.propertyNames.enum).toEqual(alertNames().sort());
    expect(rule.disabledAlerts.items.enum).toEqual(alertNames().sort());
  });

  it('each have a runbook page, and every runbook page belongs to an alert', () => {
    const pages = readdirSync(RUNBOOKS_DIR).filter((f) => f !== 'README.md').sort();
    expect(pages).toEqual(alertNames().map((a) => `${runbookSlug(a)}.md`).sort());
    for (const alert of alertNames()) {
      const page = readFileSync(join(RUNBOOKS_DIR, `${runbookSlug(alert)}.md`), 'utf8');
      expect(page.startsWith(`# ${alert}\n`), alert).toBe(true);
      for (const section of ['## Meaning', '## Confirm', '## Causes', '## Remedy', '## Escalate']) expect(page, `${alert}: ${section}`).toContain(section);
    }
    expect(existsSync(join(RUNBOOKS_DIR, 'README.md'))).toBe(true);
  });
});
