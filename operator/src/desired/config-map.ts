// ConfigMap with the server settings API pods share; its hash rolls the pods when it changes.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names, natsUrl } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function configMap(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const data: Record<string, string> = {
    HYPHAE_HOST: '0.0.0.0',
    HYPHAE_PORT: String(spec.api.port),
    HYPHAE_GRPC_PORT: String(spec.api.grpcPort),
    // API pods never embed locally: embedding is the workers' job, reached over NATS.
    HYPHAE_EMBEDDER: 'nats',
    HYPHAE_NATS_URL: natsUrl(mesh, spec),
    HYPHAE_DB_POOL_MAX: String(spec.api.database.poolMax),
    HYPHAE_DB_ACQUIRE_TIMEOUT_MS: String(spec.api.database.acquireTimeoutMs),
    HYPHAE_DB_STATEMENT_TIMEOUT_MS: String(spec.api.database.statementTimeoutMs),
    HYPHAE_HNSW_EF_SEARCH: String(spec.api.database.hnsw.efSearch),
    HYPHAE_HNSW_ITERATIVE_SCAN: spec.api.database.hnsw.iterativeScan,
    HYPHAE_HNSW_MAX_SCAN_TUPLES: String(spec.api.database.hnsw.maxScanTuples),
    HYPHAE_MCP_TOOLSETS: spec.mcp.toolsets,
    HYDRADB_MCP_LEGACY_TOOLS: spec.mcp.hydradbLegacyTools ? '1' : '0',
  };
  // The server answers only the Host names it is told (DNS-rebinding defence): the in-cluster
  // Service names, plus the ingress host. Probes are exempt server-side. api.env can override.
  const svc = names.api(mesh);
  const ns = mesh.metadata.namespace;
  const hosts = [svc, `${svc}.${ns}`, `${svc}.${ns}.svc`, `${svc}.${ns}.svc.cluster.local`];
  if (spec.ingress.enabled && spec.ingress.host) hosts.push(spec.ingress.host);
  data.HYPHAE_ALLOWED_HOSTS = hosts.join(',');
  // The API pods ask NATS for the model the workers serve (their subject is named after it).
  if (spec.workers.model !== undefined) data.HYPHAE_EMBED_MODEL = spec.workers.model;
  // The default retention per cell type (docs/expiry.md); a bad value stops the API pods naming the variable.
  if (spec.api.retentionDefaults !== undefined && spec.api.retentionDefaults !== '') data.HYPHAE_RETENTION_DEFAULTS = spec.api.retentionDefaults;
  Object.assign(data, oauthSettings(spec));
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(mesh, names.config(mesh), 'config'), data };
}

/** spec.oauth as the server's settings; the public URL defaults to the ingress host, behind TLS. */
function oauthSettings(spec: HyphaeMeshSpec): Record<string, string> {
  const oauth = spec.oauth;
  if (oauth === undefined) return {};
  const settings: Record<string, string | undefined> = {
    HYPHAE_OAUTH_ISSUER: oauth.issuer,
    HYPHAE_PUBLIC_URL: oauth.publicUrl ?? (spec.ingress.host === undefined ? undefined : `https://${spec.ingress.host}`),
    HYPHAE_OAUTH_AUDIENCE: oauth.audience,
    HYPHAE_OAUTH_TENANT_CLAIM: oauth.tenantClaim,
    HYPHAE_OAUTH_DEFAULT_TENANT: oauth.defaultTenant,
    HYPHAE_OAUTH_ALLOWED_TENANTS: oauth.allowedTenants?.join(','),
    HYPHAE_OAUTH_AGENT_CLAIM: oauth.agentClaim,
    HYPHAE_OAUTH_PROJECTS_CLAIM: oauth.projectsClaim,
    HYPHAE_CONSOLE_OAUTH_CLIENT_ID: oauth.consoleClientId,
    HYPHAE_CONSOLE_OAUTH_SCOPES: oauth.consoleScopes,
  };
  return Object.fromEntries(Object.entries(settings).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
