/**
 * Moves a database to another embedder (`hyphae reembed`): every cell and beacon gets a vector
 * from the new embedder, tenant by tenant, in batches that each commit; then the vector columns
 * are swapped and the HNSW indexes rebuilt in one transaction. Interrupted, it resumes.
 */
import { InvalidArgumentError, UnavailableError } from '../../core/errors.js';
import type { Embedder } from '../../embed/embedder.js';
import type { Db } from '../../store/db.js';
import { applyMigrations, readEmbeddingIdentity, type EmbeddingIdentity } from '../../store/migrator.js';
import {
  beginReembed,
  countReembedWork,
  finishReembed,
  nextRowsToReembed,

  writeReembedded,
  type ReembedTable,
} from '../../store/reembed-repository.js';
import { toVectorText } from '../../store/vector-text.js';

export interface ReembedProgress {
  readonly done: number;
  readonly total: number;
  readonly tenantId: string;
  readonly table: ReembedTable;
}

export interface ReembedOptions {
  /** Rows embedded and written per transaction. */
  readonly batchSize?: number;
  readonly onStart?: (info: { readonly from: EmbeddingIdentity; readonly to: EmbeddingIdentity; readonly resumed: boolean; readonly total: number }) => void;
  readonly onProgress?: (progress: ReembedProgress) => void;
  /** Checked between batches: when it returns true the run stops (resumable), as on SIGINT. */
  readonly shouldStop?: () => boolean;
}

export type ReembedOutcome =
  | { readonly status: 'already-current'; readonly identity: EmbeddingIdentity }
  | { readonly status: 'done'; readonly from: EmbeddingIdentity; readonly to: EmbeddingIdentity; readonly rows: number; readonly resumed: boolean }
  | { readonly status: 'stopped'; readonly done: number; readonly total: number };

export const REEMBED_DEFAULT_BATCH_SIZE = 64;
// Rows written by servers still running against the database are caught by further passes; past this, give up clearly.
const MAX_PASSES = 5;

export async function reembedDatabase(db: Db, embedder: Embedder, options: ReembedOptions = {}): Promise<ReembedOutcome> {
  const batchSize = options.batchSize ?? REEMBED_DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new InvalidArgumentError('reembed batch size must be an integer in [1, 10000]', [{ path: 'batchSize', message: `got ${String(batchSize)}` }]);
  }
  const from = await readEmbeddingIdentity(db);
  if (from === undefined) {
    throw new InvalidArgumentError('this database records no embedder yet: nothing to re-embed (start it once, or run `hyphae migrate`)');
  }
  // Bring an older schema up to date at its current width before anything else changes.
  await applyMigrations(db, { dimension: from.dimension, modelId: from.modelId });
  const to = { modelId: embedder.modelId, dimension: embedder.dimension };
  if (from.modelId === to.modelId && from.dimension === to.dimension) return { status: 'already-current', identity: from };

  const resumed = await beginReembed(db, to);
  const initial = await countReembedWork(db);
  const total = initial.reduce((sum, c) => sum + c.total, 0);
  let done = initial.reduce((sum, c) => sum + c.total - c.remaining, 0);
  options.onStart?.({ from, to, resumed, total });

  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const work = pass === 0 ? initial : await countReembedWork(db);
    for (const { tenantId, table, remaining } of work) {
      if (remaining === 0) continue;
      let after: string | null = null;
      for (;;) {
        if (options.shouldStop?.() === true) return { status: 'stopped', done, total };
        const rows = await nextRowsToReembed(db, table, tenantId, after, batchSize);
        if (rows.length === 0) break;
        const vectors = await embedder.embed(rows.map((row) => row.text));
        if (vectors.length !== rows.length) throw new UnavailableError(`the embedder returned ${vectors.length} vectors for ${rows.length} texts`);
        await writeReembedded(
          db,
          table,
          tenantId,
          rows.map((row, i) => ({ id: row.id, vector: toVectorText(vectors[i] as Float32Array) })),
        );
        done += rows.length;
        after = (rows.at(-1) as { id: string }).id;
        options.onProgress?.({ done, total: Math.max(total, done), tenantId, table });
      }
    }
    if (await finishReembed(db, to)) return { status: 'done', from, to, rows: done, resumed };
  }
  throw new UnavailableError(
    `cells or beacons kept arriving during ${MAX_PASSES} passes: stop the servers using this database and run hyphae reembed again (it resumes)`,
  );
}

