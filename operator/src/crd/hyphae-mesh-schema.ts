// The HyphaeMesh API, defined once: the CRD YAML is generated from these schemas and the
// operator's types are inferred from them.
import {
  array,
  boolean,
  dateTime,
  enumOf,
  int64,
  integer,
  map,
  object,
  opaqueObject,
  quantity,
  string,
} from './schema-builder.js';
import type { Infer } from './schema-builder.js';

export const GROUP = 'hyphae.dev';
export const VERSION = 'v1alpha1';
export const KIND = 'HyphaeMesh';
export const PLURAL = 'hyphaemeshes';
export const SINGULAR = 'hyphaemesh';
export const API_VERSION = `${GROUP}/${VERSION}`;

const dnsName = { minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' } as const;

/** Container resources; `requests` defaults per component so every pod is schedulable sensibly. */
const resources = (cpu: string, memory: string) =>
  object(
    {
      requests: map(quantity(), { default: { cpu, memory }, description: 'Minimum resources, e.g. {cpu: 100m, memory: 128Mi}.' }),
      limits: map(quantity(), { description: 'Maximum resources.' }),
    },
    { defaultEmpty: true, description: 'Compute resources of the container.' },
  );

const envVar = object(
  {
    name: string({ minLength: 1, description: 'Environment variable name.' }),
    value: string(),
    valueFrom: opaqueObject({ description: 'A core/v1 EnvVarSource, passed through unchanged.' }),
  },
  { required: ['name'] },
);

const secretKeyRef = (defaultKey: string, what: string) =>
  object(
    {
      name: string({ ...dnsName, description: `Name of the Secret holding ${what}.` }),
      key: string({ default: defaultKey, minLength: 1, description: 'Key inside the Secret.' }),
    },
    { required: ['name'] },
  );

export const imageSchema = object(
  {
    repository: string({ default: 'ghcr.io/hyphae-dev/hyphae', minLength: 1 }),
    tag: string({ default: '0.1.0', minLength: 1 }),
    pullPolicy: enumOf(['Always', 'IfNotPresent', 'Never'] as const, { default: 'IfNotPresent' }),
  },
  { defaultEmpty: true, description: 'The Hyphae server image used by the API and the workers.' },
);

/** How each API pod uses PostgreSQL (docs/storage.md); the defaults are the server's own. */
export const databaseSchema = object(
  {
    poolMax: integer({ minimum: 1, maximum: 1000, default: 10, description: 'PostgreSQL connections per API pod (HYPHAE_DB_POOL_MAX).' }),
    acquireTimeoutMs: integer({
      minimum: 1,
      maximum: 600_000,
      default: 5_000,
      description: 'How long a request waits for a connection (outage, restart, busy pool) before 503 with Retry-After (HYPHAE_DB_ACQUIRE_TIMEOUT_MS).',
    }),
    statementTimeoutMs: integer({
      minimum: 0,
      maximum: 86_400_000,
      default: 30_000,
      description: 'statement_timeout of every session, 0 for none; migrations run without one (HYPHAE_DB_STATEMENT_TIMEOUT_MS).',
    }),
    hnsw: object(
      {
        efSearch: integer({ minimum: 1, maximum: 1000, default: 40, description: 'pgvector hnsw.ef_search of every session: recall against speed (HYPHAE_HNSW_EF_SEARCH).' }),
        iterativeScan: enumOf(['relaxed_order', 'strict_order', 'off'] as const, {
          default: 'relaxed_order',
          description: 'pgvector hnsw.iterative_scan; off lets the tenant/project filters leave a recall short of k (HYPHAE_HNSW_ITERATIVE_SCAN).',
        }),
        maxScanTuples: integer({ minimum: 1, maximum: 2_147_483_647, default: 20_000, description: 'pgvector hnsw.max_scan_tuples: where an iterative scan gives up (HYPHAE_HNSW_MAX_SCAN_TUPLES).' }),
      },
      { defaultEmpty: true, description: 'HNSW scan settings of the kNN search.' },
    ),
  },
  { defaultEmpty: true, description: 'Connection pool, timeouts and kNN scan settings of the API pods.' },
);

export const apiSchema = object(
  {
    replicas: integer({ minimum: 0, maximum: 1000, default: 2, description: 'API pods (ignored while autoscaling is enabled).' }),
    port: integer({ minimum: 1, maximum: 65535, default: 8787 }),
    database: databaseSchema,
    grpcPort: integer({ minimum: 0, maximum: 65535, default: 50051, description: 'gRPC port (gRPC, gRPC-Web, Connect over h2c) on the API pods and Service; 0 turns it off.' }),
    resources: resources('100m', '256Mi'),
    env: array(envVar, { listType: 'map', listMapKeys: ['name'], maxItems: 64, description: 'Extra environment for the API pods.' }),
    retentionDefaults: string({
      maxLength: 512,
      description: 'How long cells of a type are kept when a store names no expiry, e.g. "Task=30d,Context=12h" (HYPHAE_RETENTION_DEFAULTS, docs/expiry.md); unset or empty keeps every type.',
    }),
  },
  {
    defaultEmpty: true,
    validations: [{ rule: '!has(self.grpcPort) || !has(self.port) || self.grpcPort != self.port', message: 'api.grpcPort must differ from api.port', fieldPath: '.grpcPort' }],
  },
);

export const autoscalingSchema = object(
  {
    enabled: boolean({ default: false }),
    minReplicas: integer({ minimum: 1, maximum: 1000, default: 2 }),
    maxReplicas: integer({ minimum: 1, maximum: 1000, default: 10 }),
    targetCPUUtilizationPercentage: integer({ minimum: 1, maximum: 100, default: 70 }),
  },
  {
    defaultEmpty: true,
    validations: [{ rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' }],
  },
);

export const workersSchema = object(
  {
    replicas: integer({ minimum: 0, maximum: 1000, default: 1 }),
    embedder: enumOf(['minilm', 'use-lite', 'hash', 'openai'] as const, { default: 'minilm', description: 'Embedding provider the workers run.' }),
    model: string({ description: 'Embedding model name (HYPHAE_EMBED_MODEL).' }),
    url: string({ pattern: '^https?://.+', description: 'OpenAI-compatible /v1/embeddings base URL (HYPHAE_EMBED_URL), required by embedder openai.' }),
    apiKeySecret: secretKeyRef('api-key', 'the embeddings API key'),
    resources: resources('100m', '256Mi'),
  },
  {
    defaultEmpty: true,
    validations: [{ rule: "self.embedder != 'openai' || has(self.url)", message: 'workers.embedder openai requires url', fieldPath: '.url' }],
  },
);

const backupTypes = ['full', 'diff', 'incr'] as const;
const pgbackrestOptions = (what: string) =>
  map(string({ maxLength: 4096 }), {
    description: `pgBackRest settings for ${what} (option name without the leading --, e.g. repo1-type: s3, repo1-s3-bucket: …); credentials belong in secretRef.`,
  });
const envSecretRef = (what: string) =>
  object(
    { name: string({ ...dnsName, description: `Secret whose keys become environment variables of ${what}, e.g. PGBACKREST_REPO1_S3_KEY.` }) },
    { required: ['name'] },
  );

/** pgBackRest backups of the managed PostgreSQL (docs/operations.md): WAL archiving plus scheduled backups. */
export const postgresBackupSchema = object(
  {
    enabled: boolean({ default: false, description: 'Archive WAL and take scheduled backups with pgBackRest (runs PostgreSQL under Patroni even with one instance).' }),
    schedule: string({
      default: '0 3 * * *',
      pattern: '^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\\S+( +\\S+){4})$',
      description: 'When the backup CronJob runs (cron syntax, the cluster\'s time zone).',
    }),
    type: enumOf(backupTypes, { default: 'full', description: 'pgBackRest backup type of the scheduled backup.' }),
    retentionFull: integer({ minimum: 1, maximum: 9999, default: 7, description: 'Full backups kept (repo1-retention-full); older ones and the WAL only they need are expired.' }),
    archiveTimeoutSeconds: integer({
      minimum: 0,
      maximum: 86400,
      default: 60,
      description: 'archive_timeout: a WAL segment with changes is archived at the latest after this long, bounding what a restore can lose; 0 waits for full segments.',
    }),
    volume: object(
      {
        size: quantity({ default: '20Gi', description: 'Size of the repository volume.' }),
        storageClassName: string(),
        accessMode: enumOf(['ReadWriteMany', 'ReadWriteOnce'] as const, {
          default: 'ReadWriteMany',
          description: 'Every instance archives WAL into the repository: ReadWriteMany unless all instances share one node.',
        }),
        claimName: string({ ...dnsName, description: 'An existing claim to use as the repository instead of creating <name>-postgres-backup.' }),
      },
      { defaultEmpty: true, description: 'The repository volume, mounted in every instance; unused when pgbackrest sets a repo1-type other than posix.' },
    ),
    pgbackrest: pgbackrestOptions('the backup repository'),
    secretRef: envSecretRef('the PostgreSQL pods'),
  },
  { defaultEmpty: true, description: 'Physical backups and WAL archiving (managed mode).' },
);

/** Bootstrap a new managed PostgreSQL from another mesh's pgBackRest backups. */
export const postgresRestoreSchema = object(
  {
    stanza: string({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description: 'The pgBackRest stanza to restore: the name of the mesh that took the backups.',
    }),
    claimName: string({ ...dnsName, description: 'The claim holding the repository (e.g. <that mesh>-postgres-backup), mounted read-only.' }),
    targetTime: dateTime({ description: 'Recover to this moment (point in time); absent: to the end of the archived WAL.' }),
    pgbackrest: pgbackrestOptions('the repository restored from'),
    secretRef: envSecretRef('the restore (as HYPHAE_RESTORE_<key>)'),
  },
  {
    required: ['stanza'],
    description: 'Restore from pgBackRest backups when this mesh\'s PostgreSQL is first created (managed mode).',
    validations: [{ rule: 'has(self.claimName) || has(self.pgbackrest)', message: 'postgres.restore requires claimName or pgbackrest repository settings', fieldPath: '.claimName' }],
  },
);

/** Settings the managed StatefulSets write themselves; a postgres.parameters entry may not override them. */
export const OPERATOR_OWNED_PARAMETERS = [
  'listen_addresses',
  'port',
  'data_directory',
  'hba_file',
  'ident_file',
  'config_file',
  'unix_socket_directories',
  'password_encryption',
  'wal_level',
  'hot_standby',
  'wal_log_hints',
  'max_wal_senders',
  'max_replication_slots',
  'archive_mode',
  'archive_command',
  'restore_command',
  'primary_conninfo',
  'primary_slot_name',
  'synchronous_standby_names',
] as const;

/** CEL for "runs under Patroni" (operator/src/desired/postgres-topology.ts, usesPatroni). */
const patroniWhen = (pg: string): string =>
  `(has(${pg}.instances) && ${pg}.instances > 1) || (has(${pg}.backup) && ${pg}.backup.enabled) || has(${pg}.restore)`;

export const postgresSchema = object(
  {
    mode: enumOf(['managed', 'cnpg', 'external'] as const, { default: 'managed' }),
    image: string({ default: 'ghcr.io/hyphae-dev/postgres:0.1.0', description: 'PostgreSQL image with pgvector (managed mode); more than one instance or backups need Patroni and pgBackRest in it, as the default image (ghcr.io/hyphae-dev/postgres, at the release of the operator) has.' }),
    storage: object(
      {
        size: quantity({ default: '10Gi', description: 'Volume size per instance.' }),
        storageClassName: string(),
      },
      { defaultEmpty: true },
    ),
    instances: integer({
      minimum: 1,
      maximum: 9,
      description: 'PostgreSQL instances. managed: more than 1 runs Patroni (synchronous replication, automatic failover), default 1; cnpg: CloudNativePG instances.',
    }),
    backup: postgresBackupSchema,
    restore: postgresRestoreSchema,
    secretRef: secretKeyRef('url', 'the PostgreSQL URL (external mode)'),
    resources: resources('250m', '512Mi'),
    parameters: map(string({ minLength: 1, maxLength: 1024 }), {
      maxProperties: 64,
      description:
        'PostgreSQL settings by their postgresql.conf names (managed mode), e.g. {shared_buffers: 2GB, maintenance_work_mem: 1GB, effective_cache_size: 6GB}; docs/sizing.md says what a million cells want. Settings the operator or Patroni own (addresses, replication, archiving, sockets) are refused.',
    }),
  },
  {
    defaultEmpty: true,
    validations: [
      { rule: "self.mode != 'external' || has(self.secretRef)", message: 'postgres.mode external requires secretRef', fieldPath: '.secretRef' },
      { rule: "self.mode != 'cnpg' || has(self.instances)", message: 'postgres.mode cnpg requires instances', fieldPath: '.instances' },
      { rule: "self.mode == 'managed' || !self.backup.enabled", message: 'postgres.backup requires mode managed', fieldPath: '.backup' },
      { rule: "self.mode == 'managed' || !has(self.restore)", message: 'postgres.restore requires mode managed', fieldPath: '.restore' },
      { rule: "self.mode == 'managed' || !has(self.parameters)", message: 'postgres.parameters requires mode managed', fieldPath: '.parameters' },
      {
        rule: `!has(self.parameters) || self.parameters.all(k, k.matches('^[a-z][a-z0-9_.]*$') && !(k in ${JSON.stringify(OPERATOR_OWNED_PARAMETERS)}))`,
        message: 'postgres.parameters takes postgresql.conf names, and not those the operator or Patroni set (addresses, replication, archiving, sockets)',
        fieldPath: '.parameters',
      },
      {
        // The two run different StatefulSets (pod management, Services, Endpoints) over the same volumes.
        rule: `self.mode != 'managed' || oldSelf.mode != 'managed' || (${patroniWhen('self')}) == (${patroniWhen('oldSelf')})`,
        message: 'a managed PostgreSQL cannot switch in place between one plain instance and Patroni (more than one instance, backup or restore): see docs/operations.md',
        fieldPath: '.instances',
      },
    ],
  },
);

export const natsSchema = object(
  {
    mode: enumOf(['managed', 'external'] as const, { default: 'managed' }),
    image: string({ default: 'nats:2.10-alpine' }),
    replicas: integer({ minimum: 1, maximum: 9, default: 3, description: 'Cluster size (managed mode); use an odd number.' }),
    url: string({ pattern: '^(nats|tls)://.+', description: 'NATS URL (external mode).' }),
    resources: resources('50m', '64Mi'),
  },
  {
    defaultEmpty: true,
    validations: [{ rule: "self.mode != 'external' || has(self.url)", message: 'nats.mode external requires url', fieldPath: '.url' }],
  },
);

export const ingressSchema = object(
  {
    enabled: boolean({ default: false }),
    className: string(),
    host: string(dnsName),
    grpcHost: string({ ...dnsName, description: 'A host whose every path goes to the gRPC port (the controller must speak h2c to the backend).' }),
    tlsSecretName: string(dnsName),
  },
  {
    defaultEmpty: true,
    validations: [{ rule: '!self.enabled || has(self.host)', message: 'ingress.enabled requires host', fieldPath: '.host' }],
  },
);

export const authSchema = object(
  { bootstrapAdminKeySecret: secretKeyRef('admin-key', 'the bootstrap admin API key') },
  { defaultEmpty: true },
);

const claimName = (variable: string, serverDefault?: string) =>
  string({
    minLength: 1,
    maxLength: 256,
    description: `Access-token claim (${variable})${serverDefault === undefined ? '' : `; the server's default is ${serverDefault}`}.`,
  });
const tenantName = { minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' } as const;

/** OAuth access tokens the API pods accept beside API keys (docs/security.md); absent: API keys only. */
export const oauthSchema = object(
  {
    issuer: string({ maxLength: 2048, pattern: '^https?://.+', description: 'The one authorization server whose access tokens are accepted (HYPHAE_OAUTH_ISSUER); https.' }),
    publicUrl: string({
      maxLength: 2048,
      pattern: '^https?://[^/?#]+/?$',
      description: 'This server as clients reach it, the resource tokens are issued for (HYPHAE_PUBLIC_URL); default: https:// and ingress.host.',
    }),
    audience: string({ minLength: 1, maxLength: 2048, description: 'The aud tokens must carry (HYPHAE_OAUTH_AUDIENCE); default: publicUrl.' }),
    tenantClaim: claimName('HYPHAE_OAUTH_TENANT_CLAIM', 'hyphae_tenant'),
    defaultTenant: string({ ...tenantName, description: 'Tenant of a token without the tenant claim (HYPHAE_OAUTH_DEFAULT_TENANT).' }),
    allowedTenants: array(string({ minLength: 1, maxLength: 128, pattern: '^([A-Za-z0-9][A-Za-z0-9._-]*|[*])$' }), {
      listType: 'set',
      maxItems: 256,
      description: 'Tenants a token may name, or "*" for any (HYPHAE_OAUTH_ALLOWED_TENANTS); default: defaultTenant alone.',
    }),
    agentClaim: claimName('HYPHAE_OAUTH_AGENT_CLAIM', 'sub'),
    projectsClaim: claimName('HYPHAE_OAUTH_PROJECTS_CLAIM'),
    consoleClientId: string({
      minLength: 1,
      maxLength: 512,
      description: 'The client id the identity provider registered the web console under, redirect URI <publicUrl>/console/ (HYPHAE_CONSOLE_OAUTH_CLIENT_ID); unset: the console signs in with keys only.',
    }),
    consoleScopes: string({ minLength: 1, maxLength: 1024, description: 'Scopes the console asks for, space-separated (HYPHAE_CONSOLE_OAUTH_SCOPES); default: hyphae:read hyphae:write hyphae:admin.' }),
    introspectionSecret: object(
      {
        name: string({ ...dnsName, description: 'Secret with the client credentials for RFC 7662 introspection of opaque tokens.' }),
        clientIdKey: string({ default: 'client-id', minLength: 1 }),
        clientSecretKey: string({ default: 'client-secret', minLength: 1 }),
      },
      { required: ['name'] },
    ),
  },
  {
    required: ['issuer'],
    description: 'Sign-in with OAuth for remote MCP hosts (claude.ai, ChatGPT) beside API keys.',
    validations: [{ rule: 'has(self.defaultTenant) || has(self.allowedTenants)', message: 'oauth requires defaultTenant or allowedTenants', fieldPath: '.allowedTenants' }],
  },
);

export const monitoringSchema = object(
  {
    serviceMonitor: object(
      {
        enabled: boolean({ default: false }),
        interval: string({ default: '30s', pattern: '^[0-9]+(ms|s|m|h)$' }),
      },
      { defaultEmpty: true },
    ),
  },
  { defaultEmpty: true },
);

/** Which MCP toolsets the API pods serve (docs/coming-from-hydradb.md), and the key that signs hydradb_inspect's links: one Secret, so every pod accepts every pod's links. */
export const mcpSchema = object(
  {
    toolsets: string({
      default: 'hyphae',
      pattern: '^(hyphae|hydradb)(,(hyphae|hydradb))?$',
      description: 'Toolsets served when a request names none (HYPHAE_MCP_TOOLSETS): hyphae, hydradb, or both comma-separated.',
    }),
    hydradbLegacyTools: boolean({ default: false, description: 'Also register the deprecated hydra_db_* tool names (HYDRADB_MCP_LEGACY_TOOLS).' }),
    linkSecret: secretKeyRef('link-secret', 'the key signing hydradb_inspect download links (HYPHAE_HYDRADB_LINK_SECRET, at least 32 characters)'),
  },
  { defaultEmpty: true },
);

export const networkPolicySchema = object(
  {
    enabled: boolean({ default: true, description: 'NetworkPolicies that admit only the mesh\'s own pods to workers, PostgreSQL and NATS.' }),
    apiFrom: array(opaqueObject({ description: 'A networking.k8s.io/v1 NetworkPolicyPeer, passed through unchanged.' }), {
      maxItems: 32,
      description: 'Who may reach the API port (e.g. the ingress controller\'s namespace); empty or absent admits any source.',
    }),
  },
  { defaultEmpty: true },
);

export const specSchema = object(
  {
    image: imageSchema,
    api: apiSchema,
    autoscaling: autoscalingSchema,
    workers: workersSchema,
    postgres: postgresSchema,
    nats: natsSchema,
    ingress: ingressSchema,
    networkPolicy: networkPolicySchema,
    auth: authSchema,
    oauth: oauthSchema,
    monitoring: monitoringSchema,
    mcp: mcpSchema,
  },
  {
    defaultEmpty: true,
    description: 'Desired state of a Hyphae deployment.',
    validations: [
      {
        rule: '!has(self.oauth) || has(self.oauth.publicUrl) || (self.ingress.enabled && has(self.ingress.host))',
        message: 'oauth requires oauth.publicUrl or an enabled ingress with a host',
        fieldPath: '.oauth',
      },
    ],
  },
);

const condition = object(
  {
    type: string({ minLength: 1, maxLength: 316 }),
    status: enumOf(['True', 'False', 'Unknown'] as const),
    reason: string({ minLength: 1, maxLength: 1024 }),
    message: string({ maxLength: 32768 }),
    observedGeneration: int64({ minimum: 0 }),
    lastTransitionTime: dateTime(),
  },
  { required: ['type', 'status', 'reason', 'lastTransitionTime'] },
);

export const statusSchema = object(
  {
    observedGeneration: int64({ minimum: 0 }),
    conditions: array(condition, { listType: 'map', listMapKeys: ['type'] }),
    api: object({
      replicas: integer({ minimum: 0, description: 'Observed API pods (scale subresource).' }),
      readyReplicas: integer({ minimum: 0 }),
      selector: string({ description: 'Label selector of the API pods (scale subresource).' }),
    }),
    workers: object({ replicas: integer({ minimum: 0 }), readyReplicas: integer({ minimum: 0 }) }),
    missingKinds: array(string(), { listType: 'set', description: 'Optional kinds the spec needs that the cluster lacks.' }),
  },
  { description: 'Observed state, written by the operator.' },
);

export type HyphaeMeshSpec = Infer<typeof specSchema>;
export type HyphaeMeshStatus = Infer<typeof statusSchema>;
export type Condition = Infer<typeof condition>;
export type PostgresMode = HyphaeMeshSpec['postgres']['mode'];
