/** Settings of the memory itself: per-tenant limits, gossip, the Claude Code channel, sources, imports, restatement. */
import { z } from 'zod';
import { parseRetentionDefaults, type RetentionDefaults } from '../expiry.js';
import { integer, onOff, urlString } from './setting-parsers.js';
import { setting } from './setting.js';

/** The most single channel events a session may receive per minute (HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE). */
export const MAX_CHANNEL_EVENTS_PER_MINUTE = 600;

/** What one tenant, agent or process may hold; one more is refused (docs/sizing.md). */
export const limitSettings = {
  maxBeaconsPerAgent: setting({ env: 'HYPHAE_MAX_BEACONS_PER_AGENT', default: '200', parse: integer(1, 100_000), doc: 'live beacons one agent may hold (`409 CONFLICT` beyond)' }),
  maxStreamsPerKey: setting({
    env: 'HYPHAE_MAX_STREAMS_PER_KEY',
    default: '10',
    parse: integer(1, 100_000),
    doc: 'live streams (`GET /mcp` SSE, stdio pushes) open at once per API key (`429` with `Retry-After` beyond)',
  }),
  maxStreamsPerProcess: setting({ env: 'HYPHAE_MAX_STREAMS_PER_PROCESS', default: '1000', parse: integer(1, 1_000_000), doc: 'live streams open at once in one process (`429` with `Retry-After` beyond)' }),
  maxCellsPerTenant: setting({
    env: 'HYPHAE_MAX_CELLS_PER_TENANT',
    default: '1000000',
    parse: integer(1, 1_000_000_000),
    doc: 'cells one tenant may hold, every layer and version (`409 CONFLICT` beyond; nothing is written)',
  }),
  maxOpenSessionsPerAgent: setting({ env: 'HYPHAE_MAX_OPEN_SESSIONS_PER_AGENT', default: '100', parse: integer(1, 1_000_000), doc: 'sessions one agent may hold open (`409 CONFLICT` beyond)' }),
} as const;

export const gossipSettings = {
  natsUrl: setting({ env: 'HYPHAE_NATS_URL', parse: urlString(['nats:', 'tls:', 'ws:', 'wss:']), doc: 'NATS; when set, gossip crosses replicas over NATS, else an in-process bus' }),
  maxInboxDiffs: setting({
    env: 'HYPHAE_MAX_INBOX_DIFFS',
    default: '10000',
    parse: integer(1, 100_000_000),
    doc: 'diffs one inbox keeps; a write beyond it deletes the oldest (`hyphae_inbox_trimmed_total`)',
  }),
  diffRetentionDays: setting({ env: 'HYPHAE_DIFF_RETENTION_DAYS', default: '30', parse: z.coerce.number().min(0.001).max(3650), doc: 'how long diffs stay in inboxes' }),
} as const;

/** Claude Code channel events on MCP entries (docs/mcp.md). */
export const channelSettings = {
  enabled: setting({
    env: 'HYPHAE_MCP_CHANNEL',
    default: 'on',
    parse: onOff,
    doc: 'Claude Code channel events on every MCP entry (`claude/channel` declared, memories pushed as `notifications/claude/channel`); `off` withholds both',
  }),
  minTrust: setting({
    env: 'HYPHAE_MCP_CHANNEL_MIN_TRUST',
    default: '0',
    parse: z.coerce.number().min(0).max(1),
    doc: 'authors whose trust is below it get no channel event (their memories still land in the inbox)',
  }),
  maxPerMinute: setting({
    env: 'HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE',
    default: '6',
    parse: integer(0, MAX_CHANNEL_EVENTS_PER_MINUTE),
    doc: `channel events one session receives one by one per minute (0–${MAX_CHANNEL_EVENTS_PER_MINUTE}); beyond, one digest per interval`,
  }),
} as const;

/** Source ingestion (docs/sources.md). */
export const sourceSettings = {
  maxBytes: setting({
    env: 'HYPHAE_SOURCE_MAX_BYTES',
    default: String(10 * 1024 * 1024),
    parse: integer(1024, 32 * 1024 * 1024),
    doc: 'UTF-8 bytes of one source\'s text (`POST /v1/sources`, docs/sources.md), up to 32 MiB; larger is `413 TOO_LARGE`, nothing written',
  }),
  syncChunks: setting({
    env: 'HYPHAE_SOURCE_SYNC_CHUNKS',
    default: '64',
    parse: integer(0, 10_000),
    doc: 'chunks of a source embedded within the ingest call (searchable on return); a larger source is embedded in the background (`state: queued`)',
  }),
  pendingMax: setting({
    env: 'HYPHAE_SOURCE_PENDING_MAX',
    default: '16',
    parse: integer(1, 10_000),
    doc: 'background source ingestions (queued or indexing) one tenant may have at once; one more is `429 RATE_LIMITED` with `Retry-After: 60`, `details.limit = "source_pending_per_tenant"` (docs/sources.md, "Limits")',
  }),
  pendingMaxBytes: setting({
    env: 'HYPHAE_SOURCE_PENDING_MAX_BYTES',
    default: String(64 * 1024 * 1024),
    parse: integer(1024, 1024 ** 3),
    doc: 'UTF-8 bytes one tenant\'s background source ingestions may hold at once (64 MiB, up to 1 GiB); one that would pass it is `429 RATE_LIMITED`, `details.limit = "source_pending_bytes_per_tenant"`',
  }),
  embedConcurrency: setting({
    env: 'HYPHAE_SOURCE_EMBED_CONCURRENCY',
    default: '4',
    parse: integer(1, 64),
    doc: 'embedder calls of 16 chunks one ingestion keeps in flight at once; with embedding workers (`HYPHAE_EMBEDDER=nats`) they spread over the workers (docs/sources.md, "Embedding on the mesh\'s workers")',
  }),
} as const;

/** REST imports (`POST /v1/admin/import`) spool their bodies before they are checked and written. */
export const importSettings = {
  importSpoolDir: setting({
    env: 'HYPHAE_IMPORT_SPOOL_DIR',
    parse: z.string().min(1),
    doc: 'where `POST /v1/admin/import` bodies wait (default: the system\'s temporary folder) while they are checked and written (private files, removed when the import ends, fails, is aborted or the server closes)',
  }),
  maxImportSpoolBytesPerTenant: setting({
    env: 'HYPHAE_IMPORT_SPOOL_MAX_BYTES_PER_TENANT',
    default: String(2 * 1024 ** 3),
    parse: integer(1024),
    doc: 'import bytes one tenant may have spooled at once (`429 RATE_LIMITED`, `details.limit = "import_spool_per_tenant"` beyond; a body declaring more than it, or than 2 GiB, is `413` before it is read)',
  }),
  maxImportSpoolBytes: setting({
    env: 'HYPHAE_IMPORT_SPOOL_MAX_BYTES',
    default: String(4 * 1024 ** 3),
    parse: integer(1024),
    doc: 'import bytes all tenants may have spooled at once in one process (`429`, `details.limit = "import_spool_total"`)',
  }),
} as const;

/** How a store treats a cell that restates a current one (docs/memory-model.md). */
export const cellSettings = {
  restatementSimilarity: setting({
    env: 'HYPHAE_DEDUP_SIMILARITY',
    parse: z
      .string()
      .regex(/^(off|0|0?\.\d+|1|1\.0+)$/, 'a cosine similarity in (0, 1], or 0 / off to disable near-duplicate reinforcement')
      .transform((v) => (v === 'off' || Number(v) === 0 ? null : Number(v))),
    doc: 'cosine similarity at which a store that restates a current cell of its project and type reinforces it instead of adding one (unset: per embedder, minilm `0.85`, use-lite `0.85`, hash and remote models off); `0` or `off` disables ([docs/memory-model.md](docs/memory-model.md#restatements))',
  }),
  feedbackLearning: setting({
    env: 'HYPHAE_FEEDBACK_LEARNING',
    default: 'off',
    parse: onOff,
    doc: 'learning from ground truth: a judged query becomes evidence for its true cells, read by vector and hybrid recall; `off` neither records nor reads any ([docs/feedback-learning.md](docs/feedback-learning.md))',
  }),
  retentionDefaults: setting({
    env: 'HYPHAE_RETENTION_DEFAULTS',
    default: '',
    parse: z.string().transform((text, ctx): RetentionDefaults => {
      try {
        return parseRetentionDefaults(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
    doc: 'how long cells of a type are kept when a store names no `expires_at` or `ttl_seconds`: `Type=<n><unit>,…` with units `s m h d w y`, each 1s–100y (e.g. `Task=30d,Context=12h`); a type not listed is kept ([docs/expiry.md](docs/expiry.md))',
  }),
} as const;
