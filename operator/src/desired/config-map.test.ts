import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { KNN_DEFAULTS } from '../../../src/store/knn-session.js';
import { configMap } from './config-map.js';
import { meshFixture } from './test-fixtures.js';

describe('configMap', () => {
  it('points API pods at NATS for embeddings and binds all interfaces', () => {
    const { mesh, spec } = meshFixture();
    const cm = configMap(mesh, spec);
    expect(cm.metadata.name).toBe('demo-config');
    expect(cm.data).toEqual({
      HYPHAE_HOST: '0.0.0.0',
      HYPHAE_PORT: '8787',
      HYPHAE_GRPC_PORT: '50051',
      HYPHAE_EMBEDDER: 'nats',
      HYPHAE_NATS_URL: 'nats://demo-nats.team-a.svc:4222',
      HYPHAE_ALLOWED_HOSTS: 'demo-api,demo-api.team-a,demo-api.team-a.svc,demo-api.team-a.svc.cluster.local',
      HYPHAE_DB_POOL_MAX: '10',
      HYPHAE_DB_ACQUIRE_TIMEOUT_MS: '5000',
      HYPHAE_DB_STATEMENT_TIMEOUT_MS: '30000',
      HYPHAE_HNSW_EF_SEARCH: '40',
      HYPHAE_HNSW_ITERATIVE_SCAN: 'relaxed_order',
      HYPHAE_HNSW_MAX_SCAN_TUPLES: '20000',
      HYPHAE_MCP_TOOLSETS: 'hyphae',
      HYDRADB_MCP_LEGACY_TOOLS: '0',
    });
  });

  it('passes spec.mcp to the API pods as the server reads it (docs/coming-from-hydradb.md)', () => {
    const { mesh, spec } = meshFixture({ mcp: { toolsets: 'hyphae,hydradb', hydradbLegacyTools: true } });
    const config = loadConfig(configMap(mesh, spec).data as Record<string, string>);
    expect(config.mcpToolsets).toMatchObject({ toolsets: ['hyphae', 'hydradb'], legacyTools: true });
  });

  it('passes spec.api.database to the API pods as the server reads it', () => {
    const database = { poolMax: 25, acquireTimeoutMs: 2000, statementTimeoutMs: 0, hnsw: { efSearch: 100, iterativeScan: 'strict_order', maxScanTuples: 50000 } };
    const { mesh, spec } = meshFixture({ api: { database } });
    const config = loadConfig(configMap(mesh, spec).data as Record<string, string>);
    expect(config).toMatchObject({ database: { poolMax: 25, acquireTimeoutMs: 2000, statementTimeoutMs: 0 }, knn: { efSearch: 100, iterativeScan: 'strict_order', maxScanTuples: 50000 } });
  });

  it('defaults spec.api.database to the server’s own defaults', () => {
    const { mesh, spec } = meshFixture();
    const server = loadConfig({});
    expect(spec.api.database).toEqual({
      poolMax: server.database.poolMax,
      acquireTimeoutMs: server.database.acquireTimeoutMs,
      statementTimeoutMs: server.database.statementTimeoutMs,
      hnsw: KNN_DEFAULTS,
    });
    expect(configMap(mesh, spec).metadata.name).toBe('demo-config');
  });

  it("asks NATS for the workers' model when spec.workers.model names one", () => {
    const { mesh, spec } = meshFixture({ workers: { model: 'all-minilm-l6-v2-int8' } });
    expect((configMap(mesh, spec).data as Record<string, string>).HYPHAE_EMBED_MODEL).toBe('all-minilm-l6-v2-int8');
    const unset = meshFixture();
    expect(configMap(unset.mesh, unset.spec).data).not.toHaveProperty('HYPHAE_EMBED_MODEL');
  });

  it('passes api.retentionDefaults as HYPHAE_RETENTION_DEFAULTS, and nothing when unset or empty', () => {
    const { mesh, spec } = meshFixture({ api: { retentionDefaults: 'Task=30d,Context=12h' } });
    expect((configMap(mesh, spec).data as Record<string, string>).HYPHAE_RETENTION_DEFAULTS).toBe('Task=30d,Context=12h');
    const empty = meshFixture({ api: { retentionDefaults: '' } });
    expect(configMap(empty.mesh, empty.spec).data).not.toHaveProperty('HYPHAE_RETENTION_DEFAULTS');
    const unset = meshFixture();
    expect(configMap(unset.mesh, unset.spec).data).not.toHaveProperty('HYPHAE_RETENTION_DEFAULTS');
  });

  it('uses the external NATS URL and allows the ingress host', () => {
    const { mesh, spec } = meshFixture({ nats: { mode: 'external', url: 'nats://nats.infra:4222' }, ingress: { enabled: true, host: 'mem.example.com' } });
    const data = configMap(mesh, spec).data as Record<string, string>;
    expect(data.HYPHAE_NATS_URL).toBe('nats://nats.infra:4222');
    expect(data.HYPHAE_ALLOWED_HOSTS?.split(',')).toContain('mem.example.com');
  });
});

describe('configMap with spec.oauth', () => {
  it('carries the OAuth settings to the API pods, the public URL defaulting to the ingress host over https', () => {
    const { mesh, spec } = meshFixture({
      ingress: { enabled: true, host: 'mem.example.com' },
      oauth: { issuer: 'https://id.example.com/realms/hyphae', allowedTenants: ['acme', 'globex'], tenantClaim: 'org', projectsClaim: 'projects' },
    });
    const data = configMap(mesh, spec).data as Record<string, string>;
    expect(data).toMatchObject({
      HYPHAE_OAUTH_ISSUER: 'https://id.example.com/realms/hyphae',
      HYPHAE_PUBLIC_URL: 'https://mem.example.com',
      HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme,globex',
      HYPHAE_OAUTH_TENANT_CLAIM: 'org',
      HYPHAE_OAUTH_PROJECTS_CLAIM: 'projects',
    });
    expect(data.HYPHAE_OAUTH_AUDIENCE).toBeUndefined();
    expect(loadConfig(data).oauth).toMatchObject({
      issuer: 'https://id.example.com/realms/hyphae',
      resource: 'https://mem.example.com',
      audiences: ['https://mem.example.com', 'https://mem.example.com/', 'https://mem.example.com/mcp'],
      allowedTenants: ['acme', 'globex'],
      tenantClaim: 'org',
      agentClaim: 'sub',
    });
  });

  it('prefers an explicit public URL and audience, passes the console client id, and sets nothing OAuth without spec.oauth', () => {
    const { mesh, spec } = meshFixture({
      ingress: { enabled: true, host: 'mem.example.com' },
      oauth: { issuer: 'https://id.example.com', publicUrl: 'https://memory.example.org', audience: 'api://hyphae', defaultTenant: 'acme', consoleClientId: 'hyphae-console' },
    });
    expect(loadConfig(configMap(mesh, spec).data as Record<string, string>).oauth).toMatchObject({
      resource: 'https://memory.example.org',
      audiences: ['api://hyphae'],
      defaultTenant: 'acme',
      console: { clientId: 'hyphae-console', scope: 'hyphae:read hyphae:write hyphae:admin' },
    });
    const plain = meshFixture({ ingress: { enabled: true, host: 'mem.example.com' } });
    expect(Object.keys(configMap(plain.mesh, plain.spec).data as Record<string, string>).filter((name) => name.includes('OAUTH') || name === 'HYPHAE_PUBLIC_URL')).toEqual([]);
  });
});
