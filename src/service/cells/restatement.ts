/**
 * Restatements (docs/memory-model.md): a store that restates a current L0 cell of
 * the same tenant, project and type writes no cell and gossips nothing: it reinforces that cell (see
 * recordRestatement), keeps its own text and what it carried as a corroboration record of the cell, and
 * answers with the cell. A restatement is the identical text (with every embedder), or — with a
 * similarity configured — the nearest cell at that cosine similarity or above, unless the two
 * differ in a number, a negation, a name, an identifier, a swapped subject or the claim
 * (restatement-contrast.ts). Runs inside the store's transaction, after its project is
 * resolved; the reinforced row stays locked until commit.
 */
import { randomUUID } from 'node:crypto';
import type { CellType } from '../../core/cell-types.js';
import type { SourceRef } from '../../core/entities.js';
import { ConflictError } from '../../core/errors.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import { findCellByIdempotencyKey } from '../../store/cell-repository.js';
import { deleteRestatementKey, insertRestatementKey, recordRestatement, restatedCell } from '../../store/restatement-repository.js';
import type { VectorParam } from '../../store/vector-param.js';
import { restatementContrast } from './restatement-contrast.js';

/** A store about to be written, as the restatement of a current cell it may be. */
export interface RestatementCandidate {
  readonly tenantId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly content: string;
  readonly embedding: VectorParam;
  readonly agent: string;
  readonly trust: number;
  readonly idempotencyKey: string | null;
  readonly now: Date;
  /** What else the store carried; kept in the corroboration record. */
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sessionId: string | null;
  readonly sourceRef: SourceRef | null;
  readonly metadata: Record<string, unknown>;
}

/** A restatement's outcome: the cell it reinforced, or (`replay`) the cell of an earlier store with the same idempotency key. */
export interface RestatementOutcome {
  readonly row: CellRow;
  readonly replay: boolean;
}

/** What the restatement did, or null when the candidate restates no current cell (the caller writes it). `similarity` null: identical text only. */
export async function applyRestatement(tx: Queryable, candidate: RestatementCandidate, similarity: number | null): Promise<RestatementOutcome | null> {
  const found = await restatedCell(tx, candidate, similarity === null ? null : candidate.embedding);
  if (found === null) return null;
  if (!found.identical && (similarity === null || found.similarity < similarity || restatementContrast(found.content, candidate.content) !== null)) return null;
  const { idempotencyKey: key } = candidate;
  if (key !== null) {
    // The key before the cell: a concurrent store with this key that got here first makes this one its replay, which counts nothing.
    const recorded = await insertRestatementKey(tx, candidate.tenantId, candidate.agent, key, found.node_id, candidate.now);
    if (!recorded) {
      const original = await findCellByIdempotencyKey(tx, candidate.tenantId, candidate.agent, key);
      if (original === null) throw new ConflictError('idempotency key conflict; retry');
      return { row: original, replay: true };
    }
  }
  const reinforced = await recordRestatement(tx, {
    tenantId: candidate.tenantId,
    nodeId: found.node_id,
    agent: candidate.agent,
    trust: candidate.trust,
    now: candidate.now,
    record: {
      corroborationId: randomUUID(),
      content: candidate.content,
      salience: candidate.salience,
      sceneId: candidate.sceneId,
      sessionId: candidate.sessionId,
      sourceRef: candidate.sourceRef,
      metadata: candidate.metadata,
      similarity: found.similarity,
    },
  });
  if (reinforced === null) {
    // The cell went meanwhile: the caller writes the candidate as a cell of its own, under its key.
    if (key !== null) await deleteRestatementKey(tx, candidate.tenantId, candidate.agent, key);
    return null;
  }
  return { row: reinforced, replay: false };
}
