import { describe, expect, it } from 'vitest';
import { patroniConfigService, postgresReplicaService } from './patroni-services.js';
import { postgresService } from './postgres-statefulset.js';
import { meshFixture } from './test-fixtures.js';

describe('PostgreSQL Services under Patroni', () => {
  it('leaves the primary Service without a selector: Patroni writes the leader into its Endpoints', () => {
    const { mesh, spec } = meshFixture({ postgres: { instances: 3 } });
    expect(postgresService(mesh, spec).spec).toEqual({ clusterIP: 'None', ports: [{ name: 'postgres', port: 5432, targetPort: 'postgres', protocol: 'TCP' }] });
    // One instance: the same headless Service selects its pod.
    const single = meshFixture();
    expect((postgresService(single.mesh, single.spec).spec as { selector: unknown }).selector).toEqual({
      'app.kubernetes.io/name': 'hyphae',
      'app.kubernetes.io/instance': 'demo',
      'app.kubernetes.io/component': 'postgres',
    });
  });

  it('routes <name>-postgres-ro to the pods Patroni labels replicas', () => {
    const { mesh } = meshFixture();
    const ro = postgresReplicaService(mesh);
    expect(ro.metadata.name).toBe('demo-postgres-ro');
    expect((ro.spec as { selector: Record<string, string> }).selector).toMatchObject({ 'app.kubernetes.io/component': 'postgres', role: 'replica' });
  });

  it("keeps Patroni's configuration Endpoints alive with a headless Service of the same name", () => {
    const { mesh } = meshFixture();
    const config = patroniConfigService(mesh);
    expect(config.metadata.name).toBe('demo-postgres-config');
    expect(config.spec).toEqual({ clusterIP: 'None' });
    expect(config.metadata.ownerReferences?.[0]?.name).toBe('demo');
  });
});
