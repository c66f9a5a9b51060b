import { describe, expect, it } from 'vitest';
import { apiDeployment } from './api-deployment.js';
import { CONFIG_HASH_ANNOTATION } from './common.js';
import { configMap } from './config-map.js';
import { meshFixture, podSpecOf, restrictedViolations } from './test-fixtures.js';

type Dep = { spec: { replicas?: number; template: { metadata: { annotations: Record<string, string> } } } };

describe('apiDeployment', () => {
  const build = (specIn: Record<string, unknown> = {}) => {
    const { mesh, spec } = meshFixture(specIn);
    return apiDeployment(mesh, spec, configMap(mesh, spec).data as Record<string, string>);
  };

  it('runs `hyphae serve` with migrate as initContainer, probes and owner reference', () => {
    const d = build({ image: { tag: '1.2.3' } });
    const pod = podSpecOf(d) as unknown as {
      containers: Array<Record<string, unknown>>;
      initContainers: Array<Record<string, unknown>>;
    };
    const c = pod.containers[0] as Record<string, unknown>;
    expect(c.command).toEqual(['hyphae', 'serve']);
    expect(c.image).toBe('ghcr.io/hyphae-dev/hyphae:1.2.3');
    expect(c.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'http' } });
    expect(c.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'http' } });
    expect(c.ports).toEqual([
      { name: 'http', containerPort: 8787, protocol: 'TCP' },
      { name: 'grpc', containerPort: 50051, protocol: 'TCP' },
    ]);
    expect(pod.initContainers[0]?.command).toEqual(['hyphae', 'migrate']);
    expect(c.env).toContainEqual({ name: 'HYPHAE_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'demo-postgres', key: 'url' } } });
    expect(d.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'HyphaeMesh', name: 'demo', controller: true, blockOwnerDeletion: true }),
    ]);
    expect((d as unknown as Dep).spec.replicas).toBe(2);
  });

  it('meets the restricted Pod Security Standard as the image user 65532, and gives migrate resources', () => {
    const pod = podSpecOf(build());
    expect(restrictedViolations(pod)).toEqual([]);
    expect(pod.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 });
    const migrate = pod.initContainers?.[0] as { resources?: unknown } | undefined;
    expect(migrate?.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' } });
    const custom = podSpecOf(build({ api: { resources: { requests: { cpu: '1' }, limits: { memory: '2Gi' } } } }));
    expect((custom.initContainers?.[0] as { resources?: unknown }).resources).toEqual({ requests: { cpu: '1' }, limits: { memory: '2Gi' } });
  });

  it('leaves replicas to the HPA when autoscaling is on', () => {
    expect((build({ autoscaling: { enabled: true } }) as unknown as Dep).spec.replicas).toBeUndefined();
  });

  it('gives every API pod the one Secret that signs hydradb_inspect links, so any pod accepts any pod’s links', () => {
    const env = (podSpecOf(build({ mcp: { linkSecret: { name: 'links' } } })).containers[0] as unknown as { env: unknown[] }).env;
    expect(env).toContainEqual({ name: 'HYPHAE_HYDRADB_LINK_SECRET', valueFrom: { secretKeyRef: { name: 'links', key: 'link-secret' } } });
    const plain = (podSpecOf(build({})).containers[0] as unknown as { env: { name: string }[] }).env;
    expect(plain.map((variable) => variable.name)).not.toContain('HYPHAE_HYDRADB_LINK_SECRET');
  });

  it('takes the database URL from the mode-specific Secret and wires the admin key', () => {
    const ext = build({ postgres: { mode: 'external', secretRef: { name: 'db', key: 'dsn' } }, auth: { bootstrapAdminKeySecret: { name: 'adm' } } });
    const env = (podSpecOf(ext).containers[0] as unknown as { env: unknown[] }).env;
    expect(env).toContainEqual({ name: 'HYPHAE_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'dsn' } } });
    expect(env).toContainEqual({ name: 'HYPHAE_BOOTSTRAP_ADMIN_KEY', valueFrom: { secretKeyRef: { name: 'adm', key: 'admin-key' } } });
    const cnpg = build({ postgres: { mode: 'cnpg', instances: 3 } });
    expect((podSpecOf(cnpg).containers[0] as unknown as { env: unknown[] }).env).toContainEqual({
      name: 'HYPHAE_DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'demo-pg-app', key: 'uri' } },
    });
  });

  it('takes the OAuth introspection client from its Secret', () => {
    const d = build({ ingress: { enabled: true, host: 'mem.example.com' }, oauth: { issuer: 'https://id.example.com', defaultTenant: 'acme', introspectionSecret: { name: 'idp' } } });
    const env = (podSpecOf(d).containers[0] as unknown as { env: unknown[] }).env;
    expect(env).toContainEqual({ name: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID', valueFrom: { secretKeyRef: { name: 'idp', key: 'client-id' } } });
    expect(env).toContainEqual({ name: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET', valueFrom: { secretKeyRef: { name: 'idp', key: 'client-secret' } } });
  });

  it('rolls the pods when the config changes', () => {
    const a = (build() as unknown as Dep).spec.template.metadata.annotations[CONFIG_HASH_ANNOTATION];
    const b = (build({ api: { port: 9000 } }) as unknown as Dep).spec.template.metadata.annotations[CONFIG_HASH_ANNOTATION];
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(a).not.toBe(b);
  });

  it('lets api.env override a generated variable without duplicating it', () => {
    const d = build({ api: { env: [{ name: 'HYPHAE_DATABASE_URL', value: 'postgres://x' }, { name: 'EXTRA', value: '1' }] } });
    const env = (podSpecOf(d).containers[0] as unknown as { env: Array<{ name: string; value?: string }> }).env;
    expect(env.filter((e) => e.name === 'HYPHAE_DATABASE_URL')).toEqual([{ name: 'HYPHAE_DATABASE_URL', value: 'postgres://x' }]);
    expect(env).toContainEqual({ name: 'EXTRA', value: '1' });
  });
});
