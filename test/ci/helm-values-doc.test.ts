// docs/helm.md's values table against the chart: every key it names is a value the chart's schema
// accepts, and the default it states is what an install gets — values.yaml's value, or for a key
// values.yaml leaves out under `mesh`, the HyphaeMesh CRD's default (`—`: values.yaml sets none).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHART = join(ROOT, 'charts', 'hyphae');

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  default?: unknown;
}

interface DocumentedValue {
  row: string;
  key: string;
  /** The default the doc states: a YAML literal's value, `absent` for `—`, or `prose` when it states none. */
  stated: { kind: 'value'; value: unknown } | { kind: 'absent' } | { kind: 'prose'; text: string };
}

const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as SchemaNode;
const crd = parse(readFileSync(join(CHART, 'crds', 'hyphae.dev_hyphaemeshes.yaml'), 'utf8')) as {
  spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: SchemaNode } } } }> };
};
const meshSpec = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec as SchemaNode;
const appVersion = (parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion;

/** The `## Values` table's rows, as [keys cell, default cell]. */
function valuesTable(markdown: string): Array<[string, string]> {
  const section = markdown.split(/^## Values$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|(?=(?:[^`]*`[^`]*`)*[^`]*$)/).map((cell) => cell.trim());
      return [cells[1] ?? '', cells[2] ?? ''];
    });
}

/** Splits at `, ` outside backticks. */
function splitOutsideCode(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === '`') inCode = !inCode;
    if (!inCode && c === ',' && text[i + 1] === ' ') {
      parts.push(current.trim());
      current = '';
      i += 1;
      continue;
    }
    current += c;
  }
  return [...parts, current.trim()];
}

function statedDefault(text: string): DocumentedValue['stated'] {
  if (text.startsWith('—')) return { kind: 'absent' };
  const resources = /^requests ([^/\s]+)\/(\S+), limit (\S+)$/.exec(text);
  if (resources) return { kind: 'value', value: { requests: { cpu: resources[1], memory: resources[2] }, limits: { memory: resources[3] } } };
  const literal = /^`([^`]*)`/.exec(text)?.[1];
  if (literal === undefined) return { kind: 'prose', text };
  const yaml = literal.replace(/<version>/g, appVersion);
  try {
    return { kind: 'value', value: parse(yaml) as unknown };
  } catch {
    return { kind: 'value', value: yaml };
  }
}

/** One entry per key a row names; later keys of a row are siblings of the first; one default alone is each key's. */
function documentedValues(): DocumentedValue[] {
  const entries: DocumentedValue[] = [];
  for (const [keysCell, defaultCell] of valuesTable(readFileSync(join(ROOT, 'docs', 'helm.md'), 'utf8'))) {
    const names = [...keysCell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    const first = names[0] as string;
    const parent = first.includes('.') ? first.slice(0, first.lastIndexOf('.') + 1) : '';
    const keys = names.map((name, i) => (i === 0 ? name : `${parent}${name}`));
    const resources = /^requests [^,]+, limit \S+$/.test(defaultCell);
    const parts = resources ? [defaultCell] : splitOutsideCode(defaultCell);
    keys.forEach((key, i) => {
      const part = parts.length === 1 ? (parts[0] as string) : parts.length === keys.length ? (parts[i] as string) : `(${keys.length} keys, ${parts.length} defaults)`;
      entries.push({ row: keysCell, key, stated: statedDefault(part) });
    });
  }
  return entries;
}

function at(tree: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), tree);
}

function schemaAt(node: SchemaNode | undefined, path: string[]): SchemaNode | undefined {
  return path.reduce<SchemaNode | undefined>((n, key) => n?.properties?.[key], node);
}

/** What an install gets for a key: values.yaml's value, else (a mesh spec key) the CRD's default. */
function effectiveDefault(key: string): unknown {
  const path = key.split('.');
  const own = at(values, path);
  if (own !== undefined || path[0] !== 'mesh') return own;
  return schemaAt(meshSpec, path.slice(1))?.default;
}

describe("docs/helm.md's values table", () => {
  const documented = documentedValues();

  it('reads every row', () => {
    expect(documented.length).toBeGreaterThan(80);
    expect(documented.find((d) => d.key === 'mesh.api.database.hnsw.iterativeScan')?.stated).toEqual({ kind: 'value', value: 'relaxed_order' });
  });

  it('names only values the chart accepts', () => {
    const unknown = documented.filter(({ key }) => schemaAt(schema, key.split('.')) === undefined).map(({ key }) => key);
    expect(unknown).toEqual([]);
  });

  it('states a default for each key as a literal, `—`, or requests/limit', () => {
    expect(documented.filter((d) => d.stated.kind === 'prose').map((d) => `${d.key}: ${(d.stated as { text: string }).text}`)).toEqual([]);
  });

  it.each(documented.filter((d) => d.stated.kind !== 'prose').map((d) => [d.key, d]))('%s: the default it states is the chart’s', (_key, d) => {
    const actual = effectiveDefault(d.key);
    if (d.stated.kind === 'absent') expect(at(values, d.key.split('.')), `${d.key} is set in values.yaml`).toBeUndefined();
    else expect(actual).toEqual((d.stated as { value: unknown }).value);
  });
});
