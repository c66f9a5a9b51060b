/** Settings of what the process stands on: the database, its vector index scans, the embedder. */
import { z } from 'zod';
import { ITERATIVE_SCAN_MODES, KNN_DEFAULTS, MAX_EF_SEARCH, MAX_SCAN_TUPLES } from '../knn-defaults.js';
import { integer, urlString } from './setting-parsers.js';
import { setting } from './setting.js';

export const EMBEDDER_KINDS = ['minilm', 'use-lite', 'hash', 'openai', 'nats'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

export const databaseSettings = {
  dataDir: setting({
    env: 'HYPHAE_DATA_DIR',
    default: './.hyphae',
    parse: z.string().min(1),
    doc: 'embedded PGlite folder (one process at a time; a second is refused naming the holder)',
  }),
  databaseUrl: setting({ env: 'HYPHAE_DATABASE_URL', parse: urlString(['postgres:', 'postgresql:']), doc: 'PostgreSQL with pgvector; when set, PGlite is not used' }),
  poolMax: setting({ env: 'HYPHAE_DB_POOL_MAX', default: '10', parse: integer(1, 1000), doc: 'PostgreSQL connections per process' }),
  acquireTimeoutMs: setting({
    env: 'HYPHAE_DB_ACQUIRE_TIMEOUT_MS',
    default: '5000',
    parse: integer(1, 600_000),
    doc: 'how long a request waits for a database connection (outage, restart, busy pool) before `503` with `Retry-After`',
  }),
  statementTimeoutMs: setting({
    env: 'HYPHAE_DB_STATEMENT_TIMEOUT_MS',
    default: '30000',
    parse: integer(0, 86_400_000),
    doc: 'PostgreSQL `statement_timeout` of every session (`0`: none); migrations run without one',
  }),
} as const;

/** pgvector's HNSW scan settings of every session; the defaults are the store's (KNN_DEFAULTS). */
export const knnSettings = {
  efSearch: setting({
    env: 'HYPHAE_HNSW_EF_SEARCH',
    default: String(KNN_DEFAULTS.efSearch),
    parse: integer(1, MAX_EF_SEARCH),
    doc: `pgvector \`hnsw.ef_search\` of every session: recall against speed (1–${MAX_EF_SEARCH}; a recall with \`k\` > half of it raises it for that query)`,
  }),
  iterativeScan: setting({
    env: 'HYPHAE_HNSW_ITERATIVE_SCAN',
    default: KNN_DEFAULTS.iterativeScan,
    parse: z.enum(ITERATIVE_SCAN_MODES),
    doc: 'pgvector `hnsw.iterative_scan`: `relaxed_order`, `strict_order` or `off` (`off` lets the tenant/project filters leave a recall short of `k`)',
  }),
  maxScanTuples: setting({
    env: 'HYPHAE_HNSW_MAX_SCAN_TUPLES',
    default: String(KNN_DEFAULTS.maxScanTuples),
    parse: integer(1, MAX_SCAN_TUPLES),
    doc: 'pgvector `hnsw.max_scan_tuples`: where an iterative scan gives up',
  }),
} as const;

export const embedSettings = {
  kind: setting({
    env: 'HYPHAE_EMBEDDER',
    default: 'minilm',
    parse: z.enum(EMBEDDER_KINDS),
    doc: '`minilm` (all-MiniLM-L6-v2, 384-d, offline: the weights are `packages/model-all-minilm-l6-v2`), `use-lite` (Universal Sentence Encoder Lite, 512-d, offline), `hash` (fast feature hashing, no meaning), `openai` (any OpenAI-compatible `/v1/embeddings`), `nats` (embedding workers)',
  }),
  url: setting({ env: 'HYPHAE_EMBED_URL', parse: urlString(['http:', 'https:']), doc: 'remote embedder endpoint (required with `openai`)' }),
  model: setting({ env: 'HYPHAE_EMBED_MODEL', parse: z.string().min(1), doc: 'the model: `minilm` `all-minilm-l6-v2` (fp32) or `all-minilm-l6-v2-int8` (unset: fp32, or in process int8 for a database made with it); remote embedders their model (`nats` unset: as `minilm`)' }),
  apiKey: setting({ env: 'HYPHAE_EMBED_API_KEY', parse: z.string().min(1), doc: 'remote embedder key (`openai`)' }),
  openaiApiKey: setting({ env: 'OPENAI_API_KEY', parse: z.string().min(1), doc: 'the `openai` embedder\'s key when `HYPHAE_EMBED_API_KEY` is unset' }),
  dimension: setting({ env: 'HYPHAE_EMBED_DIMENSION', parse: integer(1, 2000), doc: 'vector length of a remote model Hyphae does not know by name' }),
  localFallback: setting({
    env: 'HYPHAE_EMBED_LOCAL_FALLBACK',
    default: 'false',
    parse: z.enum(['true', 'false']).transform((v) => v === 'true'),
    doc: 'with `nats`: embed locally when no worker answers',
  }),
} as const;

