/**
 * What a principal may see of a row, checked on the connection given — the database or an open
 * transaction — so a write checks inside its own transaction. A foreign id, or one outside the
 * principal's project scope, reads as NOT_FOUND.
 */
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import { canAccessProject, type Principal } from '../../core/principal.js';
import { findCell, lockCell } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import { findScene, type SceneRow } from '../../store/scene-repository.js';

export async function visibleCell(q: Queryable, principal: Principal, nodeId: string): Promise<CellRow> {
  const row = await findCell(q, principal.tenantId, nodeId);
  if (row === null || !canAccessProject(principal, row.project)) throw new NotFoundError('cell', nodeId);
  return row;
}

export async function visibleScene(q: Queryable, principal: Principal, sceneId: string): Promise<SceneRow> {
  const scene = await findScene(q, principal.tenantId, sceneId);
  if (scene === null || !canAccessProject(principal, scene.project)) throw new NotFoundError('scene', sceneId);
  return scene;
}

/**
 * The cell a store replaces, row-locked until commit: readable by the principal (else NOT_FOUND),
 * in the project the new cell goes to, an L0 cell, and still current — a cell has one successor,
 * so a second supersession of it is a CONFLICT naming the first.
 */
export async function supersedable(tx: Queryable, principal: Principal, nodeId: string, project: string): Promise<CellRow> {
  const row = await lockCell(tx, principal.tenantId, nodeId);
  if (row === null || !canAccessProject(principal, row.project)) throw new NotFoundError('cell', nodeId);
  if (row.project !== project) {
    throw new InvalidArgumentError(`cell ${nodeId} belongs to project ${row.project}, not your current project ${project}`, [
      { path: 'supersedes', message: 'the superseded cell is in another project than your current project' },
    ]);
  }
  if (row.layer !== 'L0') {
    throw new InvalidArgumentError(`cell ${nodeId} is an ${row.layer} cell; supersede the L0 cell it derives from`, [
      { path: 'supersedes', message: 'only L0 cells can be superseded' },
    ]);
  }
  if (row.valid_until !== null) {
    throw new ConflictError(`cell ${nodeId} was already superseded by ${row.superseded_by ?? 'another cell'}; supersede the current version`, {
      details: { field: 'supersedes', superseded_by: row.superseded_by },
    });
  }
  return row;
}

/**
 * An idempotent replay returns the original cell only to a key that may read it: another key of
 * the same agent, scoped to other projects, learns that the key was used and nothing of the cell.
 */
export function replayable(principal: Principal, original: CellRow): CellRow {
  if (!canAccessProject(principal, original.project)) {
    throw new ConflictError('this idempotency key was already used by this agent in a project outside your key scope', {
      details: { field: 'idempotency_key' },
    });
  }
  return original;
}

/** What a diff, a beacon or a session reveals is bounded by the reading key's projects, not the agent's. */
export function diffVisibleTo(principal: Principal): (diff: { readonly project: string }) => boolean {
  return (diff) => canAccessProject(principal, diff.project);
}

export function beaconVisibleTo(principal: Principal, beacon: { readonly project: string | null; readonly owner_projects: readonly string[] }): boolean {
  return beacon.project !== null ? canAccessProject(principal, beacon.project) : beacon.owner_projects.every((project) => canAccessProject(principal, project));
}
