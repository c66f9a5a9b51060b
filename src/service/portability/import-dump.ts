/**
 * `hyphae import` and `POST /v1/admin/import`: checks the whole file first (check-dump.ts), then
 * writes it in one transaction (write-dump.ts), so a refused or failed import leaves the target as
 * it was. Importing the same file again adds nothing.
 */
import { ConflictError } from '../../core/errors.js';
import { EXPORT_RECORD_TYPES, type ImportSummary } from '../../core/export-format.js';
import type { Embedder } from '../../embed/embedder.js';
import type { Db } from '../../store/db.js';
import { countTenantCells, lockEmptyVectorTables } from '../../store/import-repository.js';
import type { EmbeddingIdentity } from '../../store/migrator.js';
import { createVectorIndex, dropVectorIndex, type VectorTable } from '../../store/vector-indexes.js';
import { checkDump } from './check-dump.js';
import type { DumpReader } from './dump-items.js';
import type { TenantImport } from './tenant-import.js';
import { writeDump } from './write-dump.js';

export interface ImportProgress {
  readonly phase: 'checking' | 'writing' | 'indexing';
  readonly records: number;
  /** Known once the file is checked. */
  readonly total?: number;
}

export interface ImportDumpOptions {
  /** The embedder identity the target's vectors come from. */
  readonly target: EmbeddingIdentity;
  /** The target's embedder (same identity), loaded only if something must be embedded. */
  readonly embedder: () => Promise<Embedder>;
  /** The only tenant the file may name; undefined: any (the local operator's import). */
  readonly tenant?: string;
  /** The most cells `tenantId` may hold after the import (a REST import honours the tenant quota). */
  readonly cellQuota?: { readonly tenantId: string; readonly limit: number };
  /**
   * When the file holds at least this many cells and beacons and the target none yet (a restore
   * into a new database), load without their vector indexes and build each once at the end, as
   * pg_restore does. The import then holds both tables exclusively until it commits: for the local
   * operator, not for a serving tenant. Unset: never.
   */
  readonly bulkLoadFrom?: number;
  readonly onProgress?: (progress: ImportProgress) => void;
  /** Called inside the import's transaction once every row is written, before it commits. */
  readonly beforeCommit?: () => void;
  /** A tenant's own import (REST): held to tenant-import.ts's rules; unset, the file is restored as written (the operator's). */
  readonly tenantImport?: TenantImport;
}

const VECTOR_TABLES: readonly VectorTable[] = ['cells', 'beacons'];


export async function importDump(db: Db, reader: DumpReader, options: ImportDumpOptions): Promise<ImportSummary> {
  const checked = await checkDump(db, reader, {
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    ...(options.tenantImport === undefined ? {} : { tenantImport: options.tenantImport }),
    onProgress: (records) => options.onProgress?.({ phase: 'checking', records }),
  });
  const quota = options.cellQuota;
  if (quota !== undefined && checked.newCells > 0) {
    const after = (await countTenantCells(db, quota.tenantId)) + checked.newCells;
    if (after > quota.limit) {
      throw new ConflictError(`the import would bring the tenant to ${after} cells; its limit is ${quota.limit}`, {
        details: { quota: 'cells_per_tenant', limit: quota.limit },
      });
    }
  }
  const vectors = checked.description.vectors;
  const useFileVectors = vectors !== null && vectors.modelId === options.target.modelId && vectors.dimension === options.target.dimension;
  const total = EXPORT_RECORD_TYPES.reduce((sum, type) => sum + checked.counts[type], 0);
  // No statement timeout: one transaction writes the whole file, however large.
  const bulk = options.bulkLoadFrom !== undefined && checked.counts.cell + checked.counts.beacon >= options.bulkLoadFrom;
  const added = await db.transaction(async (tx) => {
    const rebuild = bulk && (await lockEmptyVectorTables(tx));
    if (rebuild) for (const table of VECTOR_TABLES) await dropVectorIndex(tx, table);
    const written = await writeDump(tx, reader, {
      useFileVectors,
      embedder: options.embedder,
      ...(options.tenantImport === undefined ? {} : { tenantImport: options.tenantImport }),
      onProgress: (records) => options.onProgress?.({ phase: 'writing', records, total }),
    });
    if (rebuild) {
      options.onProgress?.({ phase: 'indexing', records: total, total });
      for (const table of VECTOR_TABLES) await createVectorIndex(tx, table, options.target.modelId);
    }
    options.beforeCommit?.();
    return written;
  }, { statementTimeoutMs: 0 });
  const records = Object.fromEntries(EXPORT_RECORD_TYPES.map((type) => [type, { in_file: checked.counts[type], added: added[type] }])) as ImportSummary['records'];
  return { format: checked.description.format, version: checked.description.version, vectors_from_file: useFileVectors, records };
}
