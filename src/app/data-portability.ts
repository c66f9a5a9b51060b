/**
 * What `hyphae export` and `hyphae import` run on the configured database (the embedded folder or
 * PostgreSQL), as the local operator: every tenant unless one is named, no tenant quota. The
 * database is migrated first; the embedder is only described for an export, and loaded for an
 * import only when something must be embedded (the file has no vectors, or another embedder's).
 */
import type { HyphaeConfig } from '../core/config.js';
import type { ImportSummary } from '../core/export-format.js';
import type { Embedder } from '../embed/embedder.js';
import { exportDumpLines, importDump, PRODUCT_VERSION, type DumpReader, type ImportProgress } from '../service/index.js';
import { openMigratedDatabase } from './configured-database.js';
import { createConfiguredEmbedder } from './configured-embedder.js';

export interface DatabaseExportOptions {
  readonly tenant?: string;
  readonly project?: string;
  readonly withVectors: boolean;
  /** Takes each chunk of lines; resolves when it may take the next (back-pressure). */
  readonly write: (chunk: string) => Promise<void>;
  readonly onProgress?: (records: number) => void;
}

export async function exportConfiguredDatabase(config: HyphaeConfig, options: DatabaseExportOptions): Promise<void> {
  const database = await openMigratedDatabase(config, 'hyphae export');
  try {
    const lines = exportDumpLines(database.db, {
      scope: { tenantId: options.tenant ?? null, project: options.project ?? null },
      withVectors: options.withVectors,
      identity: database.migration.identity,
      hyphaeVersion: PRODUCT_VERSION,
      now: new Date(),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    for await (const chunk of lines) await options.write(chunk);
  } finally {
    await database.close();
  }
}

/** Below this many vectors an import into an empty database keeps the indexes: inserting into them costs less than building them anew. */
const BULK_LOAD_FROM = 1000;

export interface DatabaseImportOptions {
  /** The only tenant the file may name. */
  readonly tenant?: string;
  readonly onProgress?: (progress: ImportProgress) => void;
}

export async function importIntoConfiguredDatabase(config: HyphaeConfig, reader: DumpReader, options: DatabaseImportOptions): Promise<ImportSummary> {
  const database = await openMigratedDatabase(config, 'hyphae import');
  let embedder: Promise<Embedder> | undefined;
  try {
    return await importDump(database.db, reader, {
      target: database.migration.identity,
      bulkLoadFrom: BULK_LOAD_FROM,
      embedder: () => (embedder ??= createConfiguredEmbedder(config, { embedsOnly: true })),
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
  } finally {
    await database.close();
    if (embedder !== undefined) await (await embedder).close();
  }
}
