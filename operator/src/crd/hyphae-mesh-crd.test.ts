import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRD_FILE, hyphaeMeshCrd, hyphaeMeshCrdYaml } from './hyphae-mesh-crd.js';
import { specSchema } from './hyphae-mesh-schema.js';
import type { JsonSchemaProps } from './schema-builder.js';
import { applyDefaults } from './schema-builder.js';
import type { HyphaeMeshSpec } from './hyphae-mesh-schema.js';

describe('HyphaeMesh CRD', () => {
  it('checked-in YAML equals the generated one (run `tsx operator/src/crd/generate.ts`)', () => {
    const path = fileURLToPath(new URL(`../../../crds/${CRD_FILE}`, import.meta.url));
    expect(readFileSync(path, 'utf8')).toBe(hyphaeMeshCrdYaml());
    expect(parse(readFileSync(path, 'utf8'))).toEqual(hyphaeMeshCrd());
  });

  it('is structural: every node has a type or is int-or-string / preserve-unknown', () => {
    const walk = (s: JsonSchemaProps, at: string): void => {
      const typed = s.type !== undefined || s['x-kubernetes-int-or-string'] === true;
      expect(typed, `node ${at} lacks a type`).toBe(true);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${at}.${k}`);
      if (s.items) walk(s.items, `${at}[]`);
      if (s.additionalProperties) walk(s.additionalProperties, `${at}{}`);
    };
    walk(specSchema.json, 'spec');
  });

  it('defaults an empty spec the way the API server does', () => {
    const spec = applyDefaults<HyphaeMeshSpec>(specSchema.json, {});
    expect(spec.api).toEqual({
      replicas: 2,
      port: 8787,
      grpcPort: 50051,
      database: { poolMax: 10, acquireTimeoutMs: 5000, statementTimeoutMs: 30000, hnsw: { efSearch: 40, iterativeScan: 'relaxed_order', maxScanTuples: 20000 } },
      resources: { requests: { cpu: '100m', memory: '256Mi' } },
    });
    expect(spec.workers.resources.requests).toEqual({ cpu: '100m', memory: '256Mi' });
    expect(spec.postgres.resources.requests).toEqual({ cpu: '250m', memory: '512Mi' });
    expect(spec.nats.resources.requests).toEqual({ cpu: '50m', memory: '64Mi' });
    expect(spec.networkPolicy).toEqual({ enabled: true });
    expect(spec.postgres.mode).toBe('managed');
    expect(spec.postgres.storage.size).toBe('10Gi');
    expect(spec.nats).toMatchObject({ mode: 'managed', replicas: 3 });
    expect(spec.monitoring.serviceMonitor.enabled).toBe(false);
    expect(spec.image.pullPolicy).toBe('IfNotPresent');
  });

  it('keeps default requests when only limits are given, and an explicit request map as given', () => {
    const spec = applyDefaults<HyphaeMeshSpec>(specSchema.json, { api: { resources: { limits: { memory: '1Gi' } } }, workers: { resources: { requests: { cpu: '2' } } } });
    expect(spec.api.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } });
    expect(spec.workers.resources).toEqual({ requests: { cpu: '2' } });
  });
});
