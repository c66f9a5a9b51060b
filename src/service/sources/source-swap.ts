/** The writes that make a version of a source the served one, and the check that keeps overwrite: false honest. */
import { ConflictError } from '../../core/errors.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { Queryable } from '../../store/db.js';
import { eraseCellSet, nextCellBatch } from '../../store/erasure-repository.js';
import { CHUNK_CELL_TYPE, CHUNK_SALIENCE, findIngestion, findSource, insertChunksAndServe, type IngestionRow, type SourceKey } from '../../store/source-repository.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { admitChunkCells } from './source-admission.js';

/** CONFLICT when the source exists or an ingestion of it is pending (overwrite: false). */
export async function refuseExisting(q: Queryable, key: SourceKey): Promise<void> {
  if ((await findSource(q, key)) !== null || (await findIngestion(q, key)) !== null) {
    throw new ConflictError(`source ${key.sourceId} exists in project ${key.project}; send overwrite: true to replace it`, { details: { source_id: key.sourceId } });
  }
}

/**
 * The swap: the source's old chunk cells (every copy of their text, their diffs) out, the ingestion's drafts in as
 * chunk cells, the ingestion served — one transaction, so a reader sees one version's chunks —
 * and one diff per recipient for the whole source.
 */
export async function swapIn(ctx: FacadeContext, tx: Queryable, ingestion: IngestionRow, now: Date): Promise<WrittenDiff[]> {
  const key = { tenantId: ingestion.tenant_id, project: ingestion.project, sourceId: ingestion.source_id };
  // The old version's chunks go as an erasure's do (every copy), their diffs with them: the new version's diffs tell of the change.
  const removed = await eraseCellSet(tx, key.tenantId, await nextCellBatch(tx, key.tenantId, { project: key.project, sourceId: key.sourceId }, Number.MAX_SAFE_INTEGER), 'delete', now);
  await admitChunkCells(tx, ingestion.tenant_id, ingestion.chunks_total, ctx.config.maxCellsPerTenant);
  const inserted = await insertChunksAndServe(tx, ingestion, now);
  ctx.quotas.inserted(ingestion.tenant_id, inserted.chunks);
  const change = {
    tenantId: ingestion.tenant_id,
    project: ingestion.project,
    sourceId: ingestion.source_id,
    cellType: CHUNK_CELL_TYPE,
    salience: CHUNK_SALIENCE,
    sceneId: null,
    sourceAgent: ingestion.created_by,
    title: ingestion.title ?? ingestion.source_id,
    // The source's expiry: its diffs' preview (the title) leaves every inbox read, and pushes stop, at that instant.
    expiresAt: inserted.expiresAt,
  } satisfies Parameters<typeof ctx.gossip.emitSource>[2];
  return ctx.gossip.emitSource(tx, (removed.counts.chunks ?? 0) > 0 ? 'updated' : 'created', change, now);
}
