// Static properties of the chart that need no helm: the CRD copy is current, versions agree and
// values.schema.json is closed everywhere and in step with the CRD's spec schema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRD_FILE, hyphaeMeshCrdYaml } from '../../operator/src/crd/hyphae-mesh-crd.js';
import { specSchema } from '../../operator/src/crd/hyphae-mesh-schema.js';
import type { JsonSchemaProps } from '../../operator/src/crd/schema-builder.js';
import { CHART_DIR, ciValueFiles, ciValues } from '../support/k8s/helm.js';

const repoRoot = join(CHART_DIR, '..', '..');
const read = (path: string): string => readFileSync(path, 'utf8');

interface ValuesSchema {
  type?: string | string[];
  properties?: Record<string, ValuesSchema>;
  additionalProperties?: boolean | ValuesSchema;
  items?: ValuesSchema;
  enum?: unknown[];
  anyOf?: ValuesSchema[];
  allOf?: ValuesSchema[];
  $ref?: string;
  definitions?: Record<string, ValuesSchema>;
}

const valuesSchema = JSON.parse(read(join(CHART_DIR, 'values.schema.json'))) as ValuesSchema;
const definitions = valuesSchema.definitions ?? {};
const resolve = (s: ValuesSchema): ValuesSchema => (s.$ref ? (definitions[s.$ref.replace('#/definitions/', '')] ?? {}) : s);

/** JSON pointers of objects with named properties that do not set additionalProperties: false. */
function openObjects(s: ValuesSchema, path: string): string[] {
  const here = s.properties && s.additionalProperties !== false ? [path] : [];
  const children: Array<[string, ValuesSchema]> = [
    ...Object.entries(s.properties ?? {}).map(([k, v]): [string, ValuesSchema] => [`${path}/${k}`, v]),
    ...Object.entries(s.definitions ?? {}).map(([k, v]): [string, ValuesSchema] => [`#/definitions/${k}`, v]),
    ...(s.items ? [[`${path}[]`, s.items] as [string, ValuesSchema]] : []),
    ...(typeof s.additionalProperties === 'object' ? [[`${path}/*`, s.additionalProperties] as [string, ValuesSchema]] : []),
    ...(s.anyOf ?? []).map((v, i): [string, ValuesSchema] => [`${path}|${i}`, v]),
  ];
  return [...here, ...children.flatMap(([p, v]) => openObjects(v, p))];
}

/** Differences between the CRD's spec schema and the chart's schema of the same values. */
function specDrift(crd: JsonSchemaProps, values: ValuesSchema, path: string): string[] {
  const v = resolve(values);
  if (crd['x-kubernetes-int-or-string']) return v.anyOf ? [] : [`${path}: quantity expected`];
  // An opaque object in the CRD (an EnvVarSource) is spelled out in full in the values schema.
  if (crd['x-kubernetes-preserve-unknown-fields']) return v.type === 'object' && v.additionalProperties === false ? [] : [`${path}: closed object expected`];
  const out: string[] = [];
  if (crd.type !== v.type) out.push(`${path}: type ${String(v.type)} should be ${String(crd.type)}`);
  if (crd.enum && JSON.stringify(crd.enum) !== JSON.stringify(v.enum)) out.push(`${path}: enum differs`);
  if (crd.properties) {
    const theirs = Object.keys(crd.properties);
    const ours = Object.keys(v.properties ?? {});
    for (const k of ours) if (!theirs.includes(k)) out.push(`${path}/${k}: not in the CRD`);
    for (const [k, sub] of Object.entries(crd.properties)) {
      const mine = v.properties?.[k];
      if (mine) out.push(...specDrift(sub, mine, `${path}/${k}`));
      else out.push(`${path}/${k}: missing from values.schema.json`);
    }
  }
  if (crd.additionalProperties) {
    const inner = typeof v.additionalProperties === 'object' ? v.additionalProperties : undefined;
    out.push(...(inner ? specDrift(crd.additionalProperties, inner, `${path}/*`) : [`${path}/*: map values unchecked`]));
  }
  if (crd.items) out.push(...(v.items ? specDrift(crd.items, v.items, `${path}[]`) : [`${path}[]: items unchecked`]));
  return out;
}

describe('chart files', () => {
  it('ships the generated CRD unchanged (charts/hyphae/crds equals crds/)', () => {
    const chartCopy = read(join(CHART_DIR, 'crds', CRD_FILE));
    expect(chartCopy).toBe(read(join(repoRoot, 'crds', CRD_FILE)));
    expect(chartCopy).toBe(hyphaeMeshCrdYaml());
  });

  it('has appVersion equal to the package version', () => {
    const chart = parse(read(join(CHART_DIR, 'Chart.yaml'))) as { apiVersion: string; appVersion: string };
    const pkg = JSON.parse(read(join(repoRoot, 'package.json'))) as { version: string };
    expect(chart.apiVersion).toBe('v2');
    expect(chart.appVersion).toBe(pkg.version);
  });

  it('says how to upgrade the CRD in NOTES.txt and docs/helm.md', () => {
    const command = 'kubectl apply --server-side';
    expect(read(join(CHART_DIR, 'templates', 'NOTES.txt'))).toContain(command);
    expect(read(join(repoRoot, 'docs', 'helm.md'))).toContain(`${command} --force-conflicts -f charts/hyphae/crds/`);
  });
});

describe('values.schema.json', () => {
  it('closes every object with additionalProperties: false', () => {
    expect(openObjects(valuesSchema, '#')).toEqual([]);
  });

  it('compiles under strict Ajv and accepts values.yaml and every ci value set', () => {
    const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
    const validate = ajv.compile(valuesSchema);
    const defaults = parse(read(join(CHART_DIR, 'values.yaml'))) as Record<string, unknown>;
    expect(validate(defaults), JSON.stringify(validate.errors)).toBe(true);
    for (const file of ciValueFiles) {
      const overlay = parse(read(ciValues(file))) as Record<string, unknown>;
      const merged = deepMerge(defaults, overlay);
      expect(validate(merged), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('describes the HyphaeMesh spec exactly as the CRD does (same fields, types and enums)', () => {
    const mesh = valuesSchema.properties?.mesh;
    expect(mesh).toBeDefined();
    const chartOnly = ['enabled', 'name', 'annotations', 'adminKey'];
    const specPart: ValuesSchema = { ...mesh, properties: Object.fromEntries(Object.entries(mesh?.properties ?? {}).filter(([k]) => !chartOnly.includes(k))) };
    // The chart sets spec.auth itself, from mesh.adminKey.
    const { auth: _auth, ...crdProps } = specSchema.json.properties ?? {};
    expect(specDrift({ ...specSchema.json, properties: crdProps }, specPart, 'mesh')).toEqual([]);
  });
});

function deepMerge(base: Record<string, unknown>, overlay: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overlay)) {
    const b = out[k];
    const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
    out[k] = isObj(b) && isObj(v) ? deepMerge(b, v) : v;
  }
  return out;
}
