/**
 * What an ingestion may take before anything of it is written (docs/sources.md, "Limits"): its
 * chunks must fit the tenant's cell quota with the chunks of its pending ingestions reserved, and a
 * background one must keep the tenant's pending ingestions within their count and bytes. Run in
 * the ingest transaction under the tenant's cell lock, so two ingestions at once cannot both take
 * the last room.
 */
import { ConflictError, RateLimitedError } from '../../core/errors.js';
import type { Queryable } from '../../store/db.js';
import { countTenantCells, lockTenantCells } from '../../store/quota-repository.js';
import { pendingLoad } from '../../store/source-ingestion-repository.js';
import { findSource, type SourceKey } from '../../store/source-repository.js';

export interface SourceAdmissionLimits {
  /** HYPHAE_MAX_CELLS_PER_TENANT. */
  readonly maxCellsPerTenant: number;
  /** HYPHAE_SOURCE_PENDING_MAX: queued or indexing ingestions per tenant. */
  readonly pendingMax: number;
  /** HYPHAE_SOURCE_PENDING_MAX_BYTES: UTF-8 bytes of a tenant's queued or indexing ingestions. */
  readonly pendingMaxBytes: number;
}

export interface SourceRequest {
  readonly key: SourceKey;
  readonly chunks: number;
  readonly bytes: number;
  /** Embedded in the background (it stays pending after the call), as opposed to within the call. */
  readonly background: boolean;
}

/** Pending ingestions are embedded in seconds to minutes: a refused one is worth retrying after a minute. */
const PENDING_RETRY_AFTER_SECONDS = 60;

/** RATE_LIMITED: the tenant's pending ingestions are at their count or bytes limit; retry when some finish. */
export class SourcePendingFullError extends RateLimitedError {
  constructor(limit: 'source_pending_per_tenant' | 'source_pending_bytes_per_tenant', setting: string, value: number, held: number) {
    super(PENDING_RETRY_AFTER_SECONDS, { details: { limit, [limit === 'source_pending_per_tenant' ? 'limit_count' : 'limit_bytes']: value } });
    this.message =
      limit === 'source_pending_per_tenant'
        ? `this tenant has ${held} source ingestions pending, the most ${setting} (${value}) allows; retry after ${PENDING_RETRY_AFTER_SECONDS}s, when some are done`
        : `this tenant's pending source ingestions hold ${held} bytes, and this one would pass ${setting} (${value}); retry after ${PENDING_RETRY_AFTER_SECONDS}s, when some are done`;
  }
}

/** Admits the ingestion, or throws RATE_LIMITED (pending count or bytes) or CONFLICT (quota cells_per_tenant). */
export async function admitSource(tx: Queryable, request: SourceRequest, limits: SourceAdmissionLimits): Promise<void> {
  const { key } = request;
  await lockTenantCells(tx, key.tenantId);
  const pending = await pendingLoad(tx, key);
  if (request.background) {
    if (pending.ingestions + 1 > limits.pendingMax) throw new SourcePendingFullError('source_pending_per_tenant', 'HYPHAE_SOURCE_PENDING_MAX', limits.pendingMax, pending.ingestions);
    if (pending.bytes + request.bytes > limits.pendingMaxBytes) {
      throw new SourcePendingFullError('source_pending_bytes_per_tenant', 'HYPHAE_SOURCE_PENDING_MAX_BYTES', limits.pendingMaxBytes, pending.bytes);
    }
  }
  const limit = limits.maxCellsPerTenant;
  // The served version's chunks leave when this one is swapped in: they are room for it.
  const replaced = (await findSource(tx, key))?.chunk_count ?? 0;
  const room = limit - (await countTenantCells(tx, key.tenantId, limit)) - pending.chunks + replaced;
  if (request.chunks > room) {
    throw new ConflictError(
      `this source is ${request.chunks} chunks (one cell each), and the tenant has room for ${Math.max(0, room)} more under HYPHAE_MAX_CELLS_PER_TENANT (${limit}), counting the chunks of its pending ingestions; delete cells or sources before ingesting it`,
      { details: { quota: 'cells_per_tenant', limit, chunks: request.chunks, room: Math.max(0, room) } },
    );
  }
}

/**
 * The swap's check: the tenant's cells and the chunks coming in within HYPHAE_MAX_CELLS_PER_TENANT,
 * counted exactly (chunk cells are inserted after it, so one admitted cell at a time would never see them).
 */
export async function admitChunkCells(tx: Queryable, tenantId: string, chunks: number, limit: number): Promise<void> {
  await lockTenantCells(tx, tenantId);
  const held = await countTenantCells(tx, tenantId, limit);
  if (held + chunks > limit) {
    throw new ConflictError(`this tenant holds ${held} cells, and this source's ${chunks} chunks would pass its limit, HYPHAE_MAX_CELLS_PER_TENANT (${limit})`, {
      details: { quota: 'cells_per_tenant', limit },
    });
  }
}
