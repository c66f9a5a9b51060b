/**
 * The HNSW indexes on the vector columns (cells_embedding, beacons_embedding: migrations 0001 and
 * 0002). Loading many rows costs far less without them and one build after (as pg_restore does):
 * `hyphae reembed` swaps its columns that way and a bulk import into an empty database loads so.
 */
import type { Queryable } from './db.js';

export type VectorTable = 'cells' | 'beacons';

const INDEXES: Readonly<Record<VectorTable, string>> = { cells: 'cells_embedding', beacons: 'beacons_embedding' };

export async function dropVectorIndex(tx: Queryable, table: VectorTable): Promise<void> {
  await tx.query(`DROP INDEX IF EXISTS ${INDEXES[table]}`);
}

export async function createVectorIndex(tx: Queryable, table: VectorTable): Promise<void> {
  await tx.query(`CREATE INDEX ${INDEXES[table]} ON ${table} USING hnsw (embedding vector_cosine_ops)`);
}
