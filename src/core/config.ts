/**
 * Process configuration (README.md, configuration): environment variables, overridden by command-line flags,
 * validated once at start-up. A bad value stops the process with a message naming the variable.
 */
import { z } from 'zod';
import { InvalidArgumentError } from './errors.js';
import { ITERATIVE_SCAN_MODES, KNN_DEFAULTS, MAX_EF_SEARCH, MAX_SCAN_TUPLES, type IterativeScanMode } from './knn-defaults.js';
import { canonicalPublicUrl, oauthEnvShape, resolveOAuthConfig, type OAuthConfig } from './oauth-config.js';

export const EMBEDDER_KINDS = ['minilm', 'use-lite', 'hash', 'openai', 'nats'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

/** gRPC's conventional port; `HYPHAE_GRPC_PORT=0` turns the gRPC surface off. */
export const DEFAULT_GRPC_PORT = 50051;

/** The most single channel events a session may receive per minute (HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE). */
export const MAX_CHANNEL_EVENTS_PER_MINUTE = 600;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const csv = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item.length > 0));

const urlString = (protocols: readonly string[]): z.ZodType<string> =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL with scheme ${protocols.join(' or ')}`);

/** Environment variable → schema. The keys are the names a user sees in error messages. */
const envSchema = z.object({
  HYPHAE_HOST: z.string().min(1).default('127.0.0.1'),
  HYPHAE_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HYPHAE_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_GRPC_PORT),
  HYPHAE_DATA_DIR: z.string().min(1).default('./.hyphae'),
  HYPHAE_DATABASE_URL: urlString(['postgres:', 'postgresql:']).optional(),
  HYPHAE_DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  HYPHAE_DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  HYPHAE_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  // Unset: the store's defaults (KNN_DEFAULTS), so they live in one place.
  HYPHAE_HNSW_EF_SEARCH: z.coerce.number().int().min(1).max(MAX_EF_SEARCH).default(KNN_DEFAULTS.efSearch),
  HYPHAE_HNSW_ITERATIVE_SCAN: z.enum(ITERATIVE_SCAN_MODES).default(KNN_DEFAULTS.iterativeScan),
  HYPHAE_HNSW_MAX_SCAN_TUPLES: z.coerce.number().int().min(1).max(MAX_SCAN_TUPLES).default(KNN_DEFAULTS.maxScanTuples),
  HYPHAE_NATS_URL: urlString(['nats:', 'tls:', 'ws:', 'wss:']).optional(),
  HYPHAE_EMBEDDER: z.enum(EMBEDDER_KINDS).default('minilm'),
  HYPHAE_EMBED_URL: urlString(['http:', 'https:']).optional(),
  HYPHAE_EMBED_MODEL: z.string().min(1).optional(),
  HYPHAE_EMBED_API_KEY: z.string().min(1).optional(),
  HYPHAE_EMBED_DIMENSION: z.coerce.number().int().min(1).max(2000).optional(),
  HYPHAE_EMBED_LOCAL_FALLBACK: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  HYPHAE_API_KEY: z.string().min(1).optional(),
  HYPHAE_ALLOWED_HOSTS: csv.default([]),
  HYPHAE_ALLOWED_ORIGINS: csv.default([]),
  HYPHAE_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // Unset: `info` (JSON lines for a collector) with HYPHAE_DATABASE_URL, `debug` (off the terminal) embedded.
  HYPHAE_REQUEST_LOG: z.enum(['info', 'debug']).optional(),
  HYPHAE_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(256 * 1024),
  HYPHAE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  HYPHAE_FAILED_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  HYPHAE_MAX_BEACONS_PER_AGENT: z.coerce.number().int().min(1).max(100_000).default(200),
  HYPHAE_MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(10),
  HYPHAE_MAX_STREAMS_PER_PROCESS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  HYPHAE_MAX_INBOX_DIFFS: z.coerce.number().int().min(1).max(100_000_000).default(10_000),
  HYPHAE_MAX_CELLS_PER_TENANT: z.coerce.number().int().min(1).max(1_000_000_000).default(1_000_000),
  HYPHAE_MAX_OPEN_SESSIONS_PER_AGENT: z.coerce.number().int().min(1).max(1_000_000).default(100),
  HYPHAE_SOURCE_MAX_BYTES: z.coerce.number().int().min(1024).max(32 * 1024 * 1024).default(10 * 1024 * 1024),
  HYPHAE_SOURCE_SYNC_CHUNKS: z.coerce.number().int().min(0).max(10_000).default(64),
  HYPHAE_SOURCE_PENDING_MAX: z.coerce.number().int().min(1).max(10_000).default(16),
  HYPHAE_SOURCE_PENDING_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 ** 3).default(64 * 1024 * 1024),
  HYPHAE_IMPORT_SPOOL_DIR: z.string().min(1).optional(),
  HYPHAE_IMPORT_SPOOL_MAX_BYTES_PER_TENANT: z.coerce.number().int().min(1024).default(2 * 1024 ** 3),
  HYPHAE_IMPORT_SPOOL_MAX_BYTES: z.coerce.number().int().min(1024).default(4 * 1024 ** 3),
  HYPHAE_DEDUP_SIMILARITY: z
    .string()
    .regex(/^(off|0|0?\.\d+|1|1\.0+)$/, 'a cosine similarity in (0, 1], or 0 / off to disable near-duplicate reinforcement')
    .transform((v) => (v === 'off' || Number(v) === 0 ? null : Number(v)))
    .optional(),
  HYPHAE_DIFF_RETENTION_DAYS: z.coerce.number().min(0.001).max(3650).default(30),
  HYPHAE_BOOTSTRAP_ADMIN_KEY: z.string().min(16).optional(),
  HYPHAE_TRUST_PROXY: z
    .string()
    // `true` would take the client address from the left-most X-Forwarded-For entry, which the client writes itself.
    .refine((v) => v !== 'true', 'true is refused: it believes an X-Forwarded-For the client writes itself; give the number of proxies in front of Hyphae (e.g. 1) or their addresses/CIDRs')
    .refine((v) => v === 'true' || /^(false|\d+|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/.test(v), 'false, a hop count, or a comma-separated list of proxy addresses/CIDRs')
    .default('false'),
  HYPHAE_METRICS_TOKEN: z.string().min(16).optional(),
  HYPHAE_A2A: z.enum(['1', '0', 'true', 'false']).default('0').transform((v) => v === '1' || v === 'true'),
  HYPHAE_CONSOLE: z.enum(['on', 'off', '1', '0', 'true', 'false']).default('on').transform((v) => v === 'on' || v === '1' || v === 'true'),
  HYPHAE_MCP_CHANNEL: z.enum(['on', 'off', '1', '0', 'true', 'false']).default('on').transform((v) => v === 'on' || v === '1' || v === 'true'),
  HYPHAE_MCP_CHANNEL_MIN_TRUST: z.coerce.number().min(0).max(1).default(0),
  HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE: z.coerce.number().int().min(0).max(MAX_CHANNEL_EVENTS_PER_MINUTE).default(6),
  ...oauthEnvShape,
});

export interface HyphaeConfig {
  readonly host: string;
  readonly port: number;
  /** Port of the gRPC surface (gRPC, gRPC-Web and Connect over h2c) on `host`; 0 = off. */
  readonly grpcPort: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL pool size per process. */
  readonly dbPoolMax: number;
  /** How long a request waits for a database connection (outage, restart, busy pool) before 503. */
  readonly dbAcquireTimeoutMs: number;
  /** PostgreSQL statement_timeout of every session; 0 = none. Migrations run without one. */
  readonly dbStatementTimeoutMs: number;
  /** hnsw.ef_search of every session (recall against speed). */
  readonly dbHnswEfSearch: number;
  /** hnsw.iterative_scan of every session. */
  readonly dbHnswIterativeScan: IterativeScanMode;
  /** hnsw.max_scan_tuples: where an iterative scan gives up. */
  readonly dbHnswMaxScanTuples: number;
  readonly natsUrl: string | undefined;
  readonly embedder: EmbedderKind;
  readonly embedUrl: string | undefined;
  readonly embedModel: string | undefined;
  readonly embedApiKey: string | undefined;
  /** Vector length of a remote model the embedders do not know by name. */
  readonly embedDimension: number | undefined;
  readonly embedLocalFallback: boolean;
  /** Near-duplicate reinforcement's similarity; null = off, undefined = the embedder's default. */
  readonly dedupSimilarity: number | null | undefined;
  readonly apiKey: string | undefined;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** The level each HTTP request's log line is written at. */
  readonly requestLogLevel: 'info' | 'debug';
  readonly bodyLimitBytes: number;
  readonly rateLimitPerMinute: number;
  readonly failedAuthPerMinute: number;
  /** Unexpired beacons one agent may hold; one more is a 409 CONFLICT. */
  readonly maxBeaconsPerAgent: number;
  /** Live streams open at once per API key and per process; one more is a 429 with Retry-After. */
  readonly maxStreamsPerKey: number;
  readonly maxStreamsPerProcess: number;
  /** Diffs one inbox keeps; older ones are trimmed first. */
  readonly maxInboxDiffs: number;
  /** Cells one tenant may hold; one more store is a 409 CONFLICT. */
  readonly maxCellsPerTenant: number;
  /** UTF-8 bytes of one source's text at most (docs/sources.md); a larger one is a 413 with nothing written. */
  readonly sourceMaxBytes: number;
  /** Chunks of a source embedded within the ingest call at most; a larger one is embedded in the background. */
  readonly sourceSyncChunks: number;
  /** Queued or indexing source ingestions per tenant, by count and by UTF-8 bytes; past either a 429 RATE_LIMITED. */
  readonly sourcePendingMax: number;
  readonly sourcePendingMaxBytes: number;
  /** Sessions one agent may hold open; one more is a 409 CONFLICT. */
  readonly maxOpenSessionsPerAgent: number;
  /** Where REST import bodies are spooled (undefined: the system's temporary folder), and how many bytes may wait there per tenant and in all; past them a 429. */
  readonly importSpoolDir: string | undefined;
  readonly maxImportSpoolBytesPerTenant: number;
  readonly maxImportSpoolBytes: number;
  readonly diffRetentionDays: number;
  /** A key to install as the tenant-`default` admin on first start (clustered installs). */
  readonly bootstrapAdminKey: string | undefined;
  /** Which proxies' X-Forwarded-* headers to believe: none, a hop count, or addresses/CIDRs (never all). */
  readonly trustProxy: false | number | readonly string[];
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** Serve the A2A agent card and JSON-RPC endpoint (opt-in; docs/a2a.md). */
  readonly a2a: boolean;
  /** Serve the web console at /console (docs/console.md); HYPHAE_CONSOLE=off turns it off. */
  readonly console: boolean;
  /** True when the database is the embedded PGlite folder. */
  readonly embedded: boolean;
  /** Claude Code channel events on every MCP entry (declared capability, pushes); off withholds both. */
  readonly mcpChannel: boolean;
  /** Authors below this trust get no channel event (their diffs still land in the inbox). */
  readonly mcpChannelMinTrust: number;
  /** Single channel events per session and minute; beyond, one digest per interval. */
  readonly mcpChannelMaxPerMinute: number;
  /** This server's canonical URL as clients reach it (HYPHAE_PUBLIC_URL's origin), if set. */
  readonly publicUrl: string | undefined;
  /** OAuth access tokens accepted beside API keys; undefined: API keys only. */
  readonly oauth: OAuthConfig | undefined;
}

/** Command-line flags that override their environment variable. */
export interface ConfigFlags {
  readonly host?: string;
  readonly port?: string;
  readonly grpcPort?: string;
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly natsUrl?: string;
  readonly embedder?: string;
}

const FLAG_TO_ENV: Readonly<Record<keyof ConfigFlags, keyof z.input<typeof envSchema>>> = {
  host: 'HYPHAE_HOST',
  port: 'HYPHAE_PORT',
  grpcPort: 'HYPHAE_GRPC_PORT',
  dataDir: 'HYPHAE_DATA_DIR',
  databaseUrl: 'HYPHAE_DATABASE_URL',
  natsUrl: 'HYPHAE_NATS_URL',
  embedder: 'HYPHAE_EMBEDDER',
};

export function loadConfig(env: NodeJS.ProcessEnv, flags: ConfigFlags = {}): HyphaeConfig {
  const merged: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    // An empty variable means unset, as shells and Kubernetes manifests often leave them.
    merged[key] = value === '' ? undefined : value;
  }
  for (const [flag, envName] of Object.entries(FLAG_TO_ENV) as [keyof ConfigFlags, string][]) {
    const value = flags[flag];
    if (value !== undefined) merged[envName] = value;
  }
  const parsed = envSchema.safeParse(merged);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      message: `${issue.path.join('.')}: ${issue.message}`,
    }));
    throw new InvalidArgumentError(`invalid configuration: ${issues.map((i) => i.message).join('; ')}`, issues);
  }
  const c = parsed.data;
  if (c.HYPHAE_EMBEDDER === 'openai' && c.HYPHAE_EMBED_URL === undefined) {
    throw new InvalidArgumentError('invalid configuration: HYPHAE_EMBED_URL is required when HYPHAE_EMBEDDER=openai', [
      { path: 'HYPHAE_EMBED_URL', message: 'required when HYPHAE_EMBEDDER=openai' },
    ]);
  }
  if (c.HYPHAE_EMBEDDER === 'nats' && c.HYPHAE_NATS_URL === undefined) {
    throw new InvalidArgumentError('invalid configuration: HYPHAE_NATS_URL is required when HYPHAE_EMBEDDER=nats', [
      { path: 'HYPHAE_NATS_URL', message: 'required when HYPHAE_EMBEDDER=nats' },
    ]);
  }
  return {
    host: c.HYPHAE_HOST,
    port: c.HYPHAE_PORT,
    grpcPort: c.HYPHAE_GRPC_PORT,
    dataDir: c.HYPHAE_DATA_DIR,
    databaseUrl: c.HYPHAE_DATABASE_URL,
    dbPoolMax: c.HYPHAE_DB_POOL_MAX,
    dbAcquireTimeoutMs: c.HYPHAE_DB_ACQUIRE_TIMEOUT_MS,
    dbStatementTimeoutMs: c.HYPHAE_DB_STATEMENT_TIMEOUT_MS,
    dbHnswEfSearch: c.HYPHAE_HNSW_EF_SEARCH,
    dbHnswIterativeScan: c.HYPHAE_HNSW_ITERATIVE_SCAN,
    dbHnswMaxScanTuples: c.HYPHAE_HNSW_MAX_SCAN_TUPLES,
    natsUrl: c.HYPHAE_NATS_URL,
    embedder: c.HYPHAE_EMBEDDER,
    embedUrl: c.HYPHAE_EMBED_URL,
    embedModel: c.HYPHAE_EMBED_MODEL,
    embedApiKey: c.HYPHAE_EMBED_API_KEY,
    embedDimension: c.HYPHAE_EMBED_DIMENSION,
    embedLocalFallback: c.HYPHAE_EMBED_LOCAL_FALLBACK,
    apiKey: c.HYPHAE_API_KEY,
    allowedHosts: c.HYPHAE_ALLOWED_HOSTS,
    allowedOrigins: c.HYPHAE_ALLOWED_ORIGINS,
    logLevel: c.HYPHAE_LOG_LEVEL,
    requestLogLevel: c.HYPHAE_REQUEST_LOG ?? (c.HYPHAE_DATABASE_URL === undefined ? 'debug' : 'info'),
    bodyLimitBytes: c.HYPHAE_BODY_LIMIT_BYTES,
    rateLimitPerMinute: c.HYPHAE_RATE_LIMIT_PER_MINUTE,
    failedAuthPerMinute: c.HYPHAE_FAILED_AUTH_PER_MINUTE,
    maxBeaconsPerAgent: c.HYPHAE_MAX_BEACONS_PER_AGENT,
    maxStreamsPerKey: c.HYPHAE_MAX_STREAMS_PER_KEY,
    maxStreamsPerProcess: c.HYPHAE_MAX_STREAMS_PER_PROCESS,
    maxInboxDiffs: c.HYPHAE_MAX_INBOX_DIFFS,
    maxCellsPerTenant: c.HYPHAE_MAX_CELLS_PER_TENANT,
    sourceMaxBytes: c.HYPHAE_SOURCE_MAX_BYTES,
    sourceSyncChunks: c.HYPHAE_SOURCE_SYNC_CHUNKS,
    sourcePendingMax: c.HYPHAE_SOURCE_PENDING_MAX,
    sourcePendingMaxBytes: c.HYPHAE_SOURCE_PENDING_MAX_BYTES,
    maxOpenSessionsPerAgent: c.HYPHAE_MAX_OPEN_SESSIONS_PER_AGENT,
    importSpoolDir: c.HYPHAE_IMPORT_SPOOL_DIR,
    maxImportSpoolBytesPerTenant: c.HYPHAE_IMPORT_SPOOL_MAX_BYTES_PER_TENANT,
    maxImportSpoolBytes: c.HYPHAE_IMPORT_SPOOL_MAX_BYTES,
    dedupSimilarity: c.HYPHAE_DEDUP_SIMILARITY,
    diffRetentionDays: c.HYPHAE_DIFF_RETENTION_DAYS,
    bootstrapAdminKey: c.HYPHAE_BOOTSTRAP_ADMIN_KEY,
    trustProxy: parseTrustProxy(c.HYPHAE_TRUST_PROXY),
    metricsToken: c.HYPHAE_METRICS_TOKEN,
    a2a: c.HYPHAE_A2A,
    console: c.HYPHAE_CONSOLE,
    embedded: c.HYPHAE_DATABASE_URL === undefined,
    mcpChannel: c.HYPHAE_MCP_CHANNEL,
    mcpChannelMinTrust: c.HYPHAE_MCP_CHANNEL_MIN_TRUST,
    mcpChannelMaxPerMinute: c.HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE,
    publicUrl: canonicalPublicUrl(c.HYPHAE_PUBLIC_URL),
    oauth: resolveOAuthConfig(c),
  };
}

function parseTrustProxy(value: string): false | number | readonly string[] {
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',');
}
