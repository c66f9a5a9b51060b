/**
 * Reinforcement of restatements (docs/memory-model.md): a store that restates a current L0 cell of
 * the same tenant, project and type writes no cell and gossips nothing: it reinforces that cell (see
 * reinforceCell), keeps its own text and what it carried as a corroboration record of the cell, and
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
import { deleteReinforcementKey, insertReinforcementKey, reinforceCell, restatedCell } from '../../store/restatement-repository.js';
import type { VectorParam } from '../../store/vector-param.js';
import { statementsContrast } from './restatement-contrast.js';

export interface Statement {
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
export interface Restated {
  readonly row: CellRow;
  readonly replay: boolean;
}

/** What the restatement did, or null when the statement is new (the caller writes it). `similarity` null: identical statements only. */
export async function reinforceRestatement(tx: Queryable, statement: Statement, similarity: number | null): Promise<Restated | null> {
  const found = await restatedCell(tx, statement, similarity === null ? null : statement.embedding);
  if (found === null) return null;
  if (!found.identical && (similarity === null || found.similarity < similarity || statementsContrast(found.content, statement.content) !== null)) return null;
  const { idempotencyKey: key } = statement;
  if (key !== null) {
    // The key before the cell: a concurrent store with this key that got here first makes this one its replay, which counts nothing.
    const recorded = await insertReinforcementKey(tx, statement.tenantId, statement.agent, key, found.node_id, statement.now);
    if (!recorded) {
      const original = await findCellByIdempotencyKey(tx, statement.tenantId, statement.agent, key);
      if (original === null) throw new ConflictError('idempotency key conflict; retry');
      return { row: original, replay: true };
    }
  }
  const reinforced = await reinforceCell(tx, {
    tenantId: statement.tenantId,
    nodeId: found.node_id,
    agent: statement.agent,
    trust: statement.trust,
    now: statement.now,
    record: {
      corroborationId: randomUUID(),
      content: statement.content,
      salience: statement.salience,
      sceneId: statement.sceneId,
      sessionId: statement.sessionId,
      sourceRef: statement.sourceRef,
      metadata: statement.metadata,
      similarity: found.similarity,
    },
  });
  if (reinforced === null) {
    // The cell went meanwhile: the caller writes the statement as a cell of its own, under its key.
    if (key !== null) await deleteReinforcementKey(tx, statement.tenantId, statement.agent, key);
    return null;
  }
  return { row: reinforced, replay: false };
}
