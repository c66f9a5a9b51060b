/** Tables filled as a restore would fill them: rows by SQL in batches with the HNSW index dropped, then indexed and analysed. */
import { randomUUID } from 'node:crypto';
import { identifierTokens } from '../../src/core/identifier-tokens.js';
import type { Db } from '../../src/store/db.js';
import { cellTermsOf, tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { readEmbeddingIdentity } from '../../src/store/migrator.js';
import { analyzeMemoryTables } from '../../src/store/statistics-repository.js';
import type { HnswBuildParameters } from '../../src/store/vector-indexes.js';
import { toVectorText } from '../../src/store/vector-text.js';
import { createBenchVectorIndex } from './hnsw-build.js';

/** The tenant and project bulk-loaded rows belong to. */
export const BULK_TENANT = 'bench';
export const BULK_PROJECT = 'default';
/** The bench agent's key in that tenant and project. */
export const BULK_KEY = { tenant: BULK_TENANT, default_project: BULK_PROJECT, projects: [BULK_PROJECT] };
const LOAD_BATCH = 500;

/**
 * Bulk-loads rows with their vectors into `kind`'s table, with the HNSW index dropped during the load
 * and rebuilt after; the build's milliseconds. `beforeIndex` runs between the load and the build
 * (updates to the loaded rows there do not pay for the index).
 */
export async function bulkLoad(
  db: Db,
  kind: 'cells' | 'beacons',
  texts: readonly string[],
  vectors: readonly Float32Array[],
  build?: HnswBuildParameters,
  beforeIndex?: (db: Db) => Promise<void>,
): Promise<number> {
  const index = kind === 'cells' ? 'cells_embedding' : 'beacons_embedding';
  await db.query(`DROP INDEX IF EXISTS ${index}`);
  for (let i = 0; i < texts.length; i += LOAD_BATCH) {
    const batch = texts
      .slice(i, i + LOAD_BATCH)
      .map((text, j) => ({ id: randomUUID(), text, vector: toVectorText(vectors[i + j] as Float32Array), ids: identifierTokens(text) }));
    // Cells with their lexical terms, as the store writes them (src/store/cell-repository.ts insertCell).
    const sql =
      kind === 'cells'
        ? `WITH loaded AS (
             INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
             SELECT r.id, $2, $3, r.text, 'Fact', 0.5, 'loader', r.vector::vector FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, text text, vector text)
             RETURNING node_id, content)
           INSERT INTO cell_tenant_terms (node_id, terms)
           SELECT loaded.node_id, ${cellTermsOf('$4::text', 'loaded.content', 'ARRAY(SELECT jsonb_array_elements_text(r.ids))')}
           FROM loaded JOIN jsonb_to_recordset($1::jsonb) AS r(id uuid, ids jsonb) ON r.id = loaded.node_id`
        : `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, text, embedding, threshold)
           SELECT r.id, $2, 'watcher-' || (abs(hashtext(r.text)) % 500)::text, ARRAY[$3], r.text, r.vector::vector, 0.4
           FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, text text, vector text)`;
    await db.query(sql, kind === 'cells' ? [JSON.stringify(batch), BULK_TENANT, BULK_PROJECT, tenantTermPrefix(BULK_TENANT)] : [JSON.stringify(batch), BULK_TENANT, BULK_PROJECT]);
  }
  await beforeIndex?.(db);
  const started = performance.now();
  await db.query(`SET maintenance_work_mem = '1GB'`);
  await createBenchVectorIndex(db, kind, (await readEmbeddingIdentity(db))?.modelId ?? '', build);
  const ms = performance.now() - started;
  await analyzeMemoryTables(db);
  return ms;
}
