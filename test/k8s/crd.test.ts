// The HyphaeMesh CRD against a real API server: it installs, defaults apply, and the schema and
// CEL rules reject invalid objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../../operator/src/errors.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import { HYPHAE_MESH, collectionPath, objectPath } from '../../operator/src/kube/resource-types.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd } from '../support/k8s/kube-helpers.js';

const skip = k8sSkipReason();

describe.skipIf(skip !== undefined)('HyphaeMesh CRD on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let ns: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
    ns = await createNamespace(client, 'crd');
  });
  afterAll(async () => {
    client?.close();
    await cp?.stop();
  });

  const create = (name: string, spec: unknown): Promise<KubeObject> =>
    client.request<KubeObject>({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name }, spec },
    });

  const rejection = async (name: string, spec: unknown): Promise<string> => {
    try {
      await create(name, spec);
    } catch (err) {
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).status).toBe(422);
      return (err as Error).message;
    }
    throw new Error(`${name} was accepted`);
  };

  it('installs, and the server fills in defaults for an empty spec', async () => {
    const mesh = await create('defaults', {});
    expect(mesh.spec).toMatchObject({
      image: { repository: 'ghcr.io/hyphae-dev/hyphae', pullPolicy: 'IfNotPresent' },
      api: { replicas: 2, port: 8787, grpcPort: 50051 },
      autoscaling: { enabled: false, minReplicas: 2, maxReplicas: 10 },
      workers: { replicas: 1, embedder: 'minilm' },
      postgres: { mode: 'managed', image: expect.stringMatching(/^ghcr\.io\/hyphae-dev\/postgres:\d+\.\d+\.\d+/), storage: { size: '10Gi' } },
      nats: { mode: 'managed', replicas: 3 },
      ingress: { enabled: false },
      monitoring: { serviceMonitor: { enabled: false, interval: '30s' } },
    });
  });

  it('rejects schema violations', async () => {
    expect(await rejection('bad-embedder', { workers: { embedder: 'magic' } })).toMatch(/spec.workers.embedder: Unsupported value: "magic"/);
    expect(await rejection('bad-replicas', { api: { replicas: -1 } })).toMatch(/spec.api.replicas/);
    expect(await rejection('bad-mode', { postgres: { mode: 'sqlite' } })).toMatch(/spec.postgres.mode/);
    expect(await rejection('bad-quantity', { postgres: { storage: { size: 'lots' } } })).toMatch(/spec.postgres.storage.size/);
  });

  it('rejects cross-field violations through CEL', async () => {
    expect(await rejection('ext-no-secret', { postgres: { mode: 'external' } })).toMatch(/postgres.mode external requires secretRef/);
    expect(await rejection('cnpg-no-instances', { postgres: { mode: 'cnpg' } })).toMatch(/postgres.mode cnpg requires instances/);
    expect(await rejection('min-over-max', { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 2 } })).toMatch(
      /minReplicas must not exceed maxReplicas/,
    );
    expect(await rejection('nats-no-url', { nats: { mode: 'external' } })).toMatch(/nats.mode external requires url/);
    expect(await rejection('ingress-no-host', { ingress: { enabled: true } })).toMatch(/ingress.enabled requires host/);
    expect(await rejection('grpc-on-http-port', { api: { port: 9000, grpcPort: 9000 } })).toMatch(/api.grpcPort must differ from api.port/);
    expect(await rejection('openai-no-url', { workers: { embedder: 'openai' } })).toMatch(/openai requires url/);
    expect(await rejection('oauth-no-url', { oauth: { issuer: 'https://id.example.com', defaultTenant: 'acme' } })).toMatch(/oauth requires oauth.publicUrl or an enabled ingress/);
    expect(await rejection('oauth-no-tenant', { oauth: { issuer: 'https://id.example.com', publicUrl: 'https://m.example.com' } })).toMatch(/oauth requires defaultTenant or allowedTenants/);
    expect(await rejection('pg-owned-setting', { postgres: { parameters: { shared_buffers: '2GB', archive_command: 'cp %p /x' } } })).toMatch(/postgres.parameters takes postgresql.conf names/);
    expect(await rejection('pg-bad-setting', { postgres: { parameters: { 'Shared Buffers': '2GB' } } })).toMatch(/postgres.parameters takes postgresql.conf names/);
    expect(await rejection('pg-ext-setting', { postgres: { mode: 'external', secretRef: { name: 'db' }, parameters: { shared_buffers: '2GB' } } })).toMatch(/postgres.parameters requires mode managed/);
    await expect(create('pg-tuned', { postgres: { parameters: { shared_buffers: '2GB', 'pg_stat_statements.max': '5000' } } })).resolves.toBeDefined();
    await expect(create('ext-ok', { postgres: { mode: 'external', secretRef: { name: 'db' } } })).resolves.toBeDefined();
    await expect(create('oauth-ok', { ingress: { enabled: true, host: 'm.example.com' }, oauth: { issuer: 'https://id.example.com', allowedTenants: ['acme'] } })).resolves.toBeDefined();
  });

  it('keeps backups and restores to managed mode, a restore to a named repository, and a PostgreSQL under one way of running', async () => {
    expect(await rejection('cnpg-backup', { postgres: { mode: 'cnpg', instances: 2, backup: { enabled: true } } })).toMatch(/postgres.backup requires mode managed/);
    expect(await rejection('ext-restore', { postgres: { mode: 'external', secretRef: { name: 'db' }, restore: { stanza: 'old', claimName: 'c' } } })).toMatch(
      /postgres.restore requires mode managed/,
    );
    expect(await rejection('restore-nowhere', { postgres: { restore: { stanza: 'old' } } })).toMatch(/postgres.restore requires claimName or pgbackrest/);
    expect(await rejection('bad-schedule', { postgres: { backup: { enabled: true, schedule: 'nightly' } } })).toMatch(/spec.postgres.backup.schedule/);
    expect(await rejection('bad-target', { postgres: { restore: { stanza: 'old', claimName: 'c', targetTime: 'yesterday' } } })).toMatch(/spec.postgres.restore.targetTime/);
    const filled = await create('backed-up', { postgres: { instances: 3, backup: { enabled: true } } });
    expect((filled.spec as { postgres: { backup: unknown } }).postgres.backup).toMatchObject({
      schedule: '0 3 * * *',
      type: 'full',
      retentionFull: 7,
      archiveTimeoutSeconds: 60,
      volume: { size: '20Gi', accessMode: 'ReadWriteMany' },
    });
    const postgres = (name: string, pg: Record<string, unknown>): Promise<unknown> => client.mergePatch(objectPath(HYPHAE_MESH, ns, name), { spec: { postgres: pg } });
    // One plain instance and Patroni run different StatefulSets over the same volumes: no switch in place.
    await create('plain', {});
    await expect(postgres('plain', { instances: 3 })).rejects.toThrow(/cannot switch in place between one plain instance and Patroni/);
    await expect(postgres('plain', { backup: { enabled: true } })).rejects.toThrow(/cannot switch in place/);
    await expect(postgres('backed-up', { instances: 1, backup: { enabled: false } })).rejects.toThrow(/cannot switch in place/);
    // Under Patroni the count may change, down to one.
    await expect(postgres('backed-up', { instances: 1 })).resolves.toBeDefined();
    await expect(postgres('backed-up', { instances: 5 })).resolves.toBeDefined();
  });

  it('serves the scale subresource on spec.api.replicas', async () => {
    await create('scalable', { api: { replicas: 3 } });
    const path = `${objectPath(HYPHAE_MESH, ns, 'scalable')}/scale`;
    const scale = await client.get<{ spec: { replicas: number } }>(path);
    expect(scale.spec.replicas).toBe(3);
    await client.mergePatch(path, { spec: { replicas: 5 } });
    const mesh = await client.get<{ spec: { api: { replicas: number } } }>(objectPath(HYPHAE_MESH, ns, 'scalable'));
    expect(mesh.spec.api.replicas).toBe(5);
  });
});
