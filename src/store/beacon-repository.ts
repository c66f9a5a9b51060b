/** SQL for beacons (standing interests). Every statement is scoped by tenant_id. */
import type { CellType } from '../core/cell-types.js';
import type { Beacon } from '../core/entities.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { SqlConditions } from './sql/conditions.js';
import { keysetPage, type KeysetPosition } from './sql/keyset-page.js';
import { isoText } from './sql-time.js';
import type { VectorParam } from './vector-param.js';

/** A beacon as stored: its wire shape with the owner's project scope when it was placed. */
export type BeaconRow = Beacon & {
  readonly owner_projects: readonly string[];
};

export const BEACON_COLUMNS = `beacon_id::text AS beacon_id, owner_agent, owner_projects, project, text, threshold, cell_types,
  scene_id::text AS scene_id, include_own, CASE WHEN expires_at IS NULL THEN NULL ELSE ${isoText('expires_at')} END AS expires_at,
  ${isoText('created_at')} AS created_at`;

export interface NewBeacon {
  readonly beaconId: string;
  readonly tenantId: string;
  readonly ownerAgent: string;
  readonly ownerProjects: readonly string[];
  readonly project: string | null;
  readonly text: string;
  readonly embedding: VectorParam;
  readonly threshold: number;
  readonly cellTypes: readonly CellType[] | null;
  readonly sceneId: string | null;
  readonly includeOwn: boolean;
  readonly expiresAt: Date | null;
  readonly now: Date;
}

export async function insertBeacon(q: Queryable, b: NewBeacon): Promise<BeaconRow> {
  const result = await q.query<BeaconRow>(
    `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, project, text, embedding, threshold, cell_types, scene_id,
       include_own, expires_at, created_at)
     VALUES ($1, $2, $3, $4::text[], $5, $6, $7::vector, $8, $9::text[], $10, $11, $12, $13)
     RETURNING ${BEACON_COLUMNS}`,
    [
      b.beaconId,
      b.tenantId,
      b.ownerAgent,
      b.ownerProjects,
      b.project,
      b.text,
      b.embedding,
      b.threshold,
      b.cellTypes,
      b.sceneId,
      b.includeOwn,
      b.expiresAt?.toISOString() ?? null,
      b.now.toISOString(),
    ],
  );
  const row = result.rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
  return row;
}

/** The owner's unexpired beacons, oldest first on (created_at, beacon_id); up to limit + 1 rows. */
export async function listOwnBeacons(
  q: Queryable,
  tenantId: string,
  owner: string,
  now: Date,
  after: KeysetPosition | null,
  limit: number,
): Promise<BeaconRow[]> {
  const where = new SqlConditions([tenantId, owner, now.toISOString()], ['tenant_id = $1', 'owner_agent = $2', '(expires_at IS NULL OR expires_at > $3)']);
  const page = keysetPage(where, { createdAt: 'created_at', id: 'beacon_id', direction: 'oldest-first' }, after, limit);
  const result = await q.query<BeaconRow>(`SELECT ${BEACON_COLUMNS} FROM beacons WHERE ${where.sql} ${page}`, where.params);
  return result.rows;
}

/** One of the owner's beacons, expired or not; null when it is not theirs. */
export async function findOwnBeacon(q: Queryable, tenantId: string, owner: string, beaconId: string): Promise<BeaconRow | null> {
  const result = await q.query<BeaconRow>(`SELECT ${BEACON_COLUMNS} FROM beacons WHERE tenant_id = $1 AND owner_agent = $2 AND beacon_id = $3`, [
    tenantId,
    owner,
    beaconId,
  ]);
  return result.rows[0] ?? null;
}

export async function deleteOwnBeacon(q: Queryable, tenantId: string, owner: string, beaconId: string): Promise<boolean> {
  const result = await q.query(`DELETE FROM beacons WHERE tenant_id = $1 AND owner_agent = $2 AND beacon_id = $3`, [tenantId, owner, beaconId]);
  return result.rowCount > 0;
}

/**
 * Serializes beacon placement per owner for the rest of the transaction, so a count then insert
 * holds a quota under concurrency (two placements cannot both see room for one more).
 */
export async function lockOwnerBeacons(tx: Queryable, tenantId: string, owner: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('hyphae.beacons:' || $1 || ':' || $2, 0))`, [tenantId, owner]);
}

/** How many unexpired beacons the owner holds. */
export async function countLiveBeacons(q: Queryable, tenantId: string, owner: string, now: Date): Promise<number> {
  const result = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM beacons WHERE tenant_id = $1 AND owner_agent = $2 AND (expires_at IS NULL OR expires_at > $3)`,
    [tenantId, owner, now.toISOString()],
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** Whether the tenant holds any beacon, expired or not. */
export async function tenantHasBeacons(q: Queryable, tenantId: string): Promise<boolean> {
  const result = await q.query<{ holds: boolean }>(`SELECT EXISTS (SELECT 1 FROM beacons WHERE tenant_id = $1) AS holds`, [tenantId]);
  return result.rows[0]?.holds === true;
}

/** A beacon a cell change may reach: what matching reads of it, and its similarity to the cell. */
export type BeaconCandidate = Pick<BeaconRow, 'beacon_id' | 'owner_agent' | 'owner_projects' | 'project' | 'threshold' | 'cell_types' | 'scene_id' | 'include_own'> & {
  readonly similarity: number;
};

/**
 * The candidates of a beacon match in one statement (hyphae_beacon_candidates, migration 0007):
 * the tenant's unexpired beacons nearest to `vector` in one iterative HNSW scan, read in chunks
 * of `firstChunk` rows growing ×4 up to `cap`, ending with the first chunk that holds a beacon
 * below the tenant's lowest threshold minus `reach`; none when the tenant has no beacons. Every
 * row read is returned; the caller applies each beacon's threshold and filters.
 */
export async function beaconCandidates(
  q: Queryable,
  tenantId: string,
  vector: VectorParam,
  now: Date,
  reach: number,
  firstChunk: number,
  cap: number,
): Promise<BeaconCandidate[]> {
  // The one-time EXISTS spares a tenant without beacons the function call and its SET clauses.
  const result = await q.query<BeaconCandidate>(`SELECT * FROM hyphae_beacon_candidates($1, $2::vector, $3, $4, $5, $6) WHERE EXISTS (SELECT 1 FROM beacons WHERE tenant_id = $1)`, [
    tenantId,
    vector,
    now.toISOString(),
    reach,
    firstChunk,
    cap,
  ]);
  return result.rows;
}

/**
 * The candidates of every live chunk cell of a source, in chunk order, in one statement (a source
 * is told as one document, docs/sources.md): each row is beaconCandidates' for one chunk's
 * embedding, naming the chunk. Run inside the swap, after the chunk cells were inserted.
 */
export async function sourceChunkBeaconCandidates(
  q: Queryable,
  source: { readonly tenantId: string; readonly project: string; readonly sourceId: string },
  now: Date,
  reach: number,
  firstChunk: number,
  cap: number,
): Promise<(BeaconCandidate & { readonly node_id: string })[]> {
  const result = await q.query<BeaconCandidate & { node_id: string }>(
    `SELECT c.node_id::text AS node_id, b.* FROM cells c CROSS JOIN LATERAL hyphae_beacon_candidates($1, c.embedding, $4, $5, $6, $7) b
     WHERE c.tenant_id = $1 AND c.project = $2 AND c.source_id = $3 AND ${liveRow('c')} AND EXISTS (SELECT 1 FROM beacons WHERE tenant_id = $1)
     ORDER BY c.chunk_index`,
    [source.tenantId, source.project, source.sourceId, now.toISOString(), reach, firstChunk, cap],
  );
  return result.rows;
}

/**
 * The unexpired beacons that were delivered a diff of `nodeId` (any op), with their similarity to
 * `vector` — the audience a supersession of that cell must reach whether or not the new text
 * matches them.
 */
export async function beaconsThatReceived(q: Queryable, tenantId: string, nodeId: string, vector: VectorParam, now: Date): Promise<BeaconCandidate[]> {
  const result = await q.query<BeaconCandidate>(
    `SELECT b.beacon_id::text AS beacon_id, b.owner_agent, b.owner_projects, b.project, b.threshold, b.cell_types,
       b.scene_id::text AS scene_id, b.include_own, (1 - (b.embedding <=> $3::vector))::float8 AS similarity
     FROM beacons b
     WHERE b.tenant_id = $1 AND (b.expires_at IS NULL OR b.expires_at > $4)
       AND EXISTS (SELECT 1 FROM diffs d WHERE d.tenant_id = $1 AND d.node_id = $2 AND d.beacon_id = b.beacon_id)
     ORDER BY b.beacon_id`,
    [tenantId, nodeId, vector, now.toISOString()],
  );
  return result.rows;
}

/** Retention: removes beacons that expired before `now`, across tenants (a system job). */
export async function purgeBeaconsExpiredBy(q: Queryable, now: Date): Promise<number> {
  const result = await q.query(`DELETE FROM beacons WHERE expires_at IS NOT NULL AND expires_at <= $1`, [now.toISOString()]);
  return result.rowCount;
}
