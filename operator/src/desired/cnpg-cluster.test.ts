import { describe, expect, it } from 'vitest';
import { cnpgCluster } from './cnpg-cluster.js';
import { meshFixture } from './test-fixtures.js';

describe('cnpgCluster', () => {
  it('asks CloudNativePG for the instances and storage, with pgvector created at bootstrap', () => {
    const { mesh, spec } = meshFixture({ postgres: { mode: 'cnpg', instances: 3, storage: { size: '20Gi' } } });
    const c = cnpgCluster(mesh, spec);
    expect(c.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(c.metadata.name).toBe('demo-pg');
    expect(c.spec).toMatchObject({
      instances: 3,
      storage: { size: '20Gi' },
      bootstrap: { initdb: { database: 'hyphae', postInitApplicationSQL: ['CREATE EXTENSION IF NOT EXISTS vector'] } },
    });
  });
});
